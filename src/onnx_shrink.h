// onnx-shrink: makes ONNX model files smaller where they are used.
//
// This header is the engine's whole public API and its manual. Everything else in src/ is an
// implementation detail.
//
// What it does
// ------------
// It finds the large floating-point weight tensors of a model (fp32, fp16, bf16, fp64; graph
// initializers and `Constant` nodes, in the main graph and in every `If`/`Loop`/`Scan` subgraph)
// and rewrites them in one of two ways:
//
//   Mode::Int8     stores each weight as 8-bit codes plus a few scales, and adds the nodes that
//                  turn them back into floats (`Cast -> Mul -> Add`, or `DequantizeLinear`). The
//                  file gets about 4x smaller; computation stays in floating point. Scales are
//                  per output channel by default (the channel axis comes from the op that consumes
//                  the weight), or per block of `block` values along the reduction axis. By
//                  default the small float tensors are stored as float16 and the bytes that saves
//                  buy low bits below the 8-bit codes (9 or 10 bits per value) for the large
//                  tensors that gain most: no larger a file, each bit halving the rounding error
//                  (Options::bits, Options::small).
//   Mode::Palette  rounds each weight tensor to at most `levels` distinct values and stores it in
//                  its original type. The raw size does not change, but gzip and brotli then
//                  compress the file several-fold. The graph is not touched.
//
// The model is never parsed into an object tree. The engine reads it through a `Source` (memory,
// or a callback that reads slices of a file), walks the protobuf structure without copying tensor
// bytes, decides what to change, and writes the result to a `Sink` by copying every untouched byte
// range and emitting only the new tensors and nodes. Peak memory is about the output plus the
// largest tensor (plus the input, when the input is given as memory).
//
// Errors
// ------
// Every function reports failure by throwing `onnx_shrink::Error`, whose `code` says what kind of
// problem it is and whose message names what is wrong (the tensor, node or byte offset). Nothing is
// written to a sink after an error has been detected during planning; an error during writing
// (a failing external-data read, say) leaves a sink partly written, so front ends write to a
// temporary and keep it only on success. Input bytes are never modified.

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace onnx_shrink {

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

enum class Mode : uint8_t {
  Int8,     // 8-bit codes + scales, expanded in the graph (default)
  Palette,  // at most `levels` distinct values per tensor, stored in the original float type
};

// How values are grouped (int8) or how the palette levels are chosen (palette).
enum class Scheme : uint8_t {
  Auto,     // int8: per channel with separable factors or a codebook. palette: see below
  Channel,  // int8: one asymmetric scale per output channel, axis chosen from the consuming op
  Tensor,   // int8: one scale per tensor from its min/max, exactly as the original Shrink Ray
  KMeans,   // palette: plain 1-D k-means, initialised linearly between min and max
  Uniform,  // palette: evenly spaced levels between min and max, exactly as the original Shrink Ray
};
// Palette Auto designs levels by k-means with an entropy penalty, tuned per tensor to use no more
// entropy than Uniform's levels, and keeps the design only where it cuts the error by at least
// 1 dB; otherwise, and whenever the exact check finds it less accurate, it keeps Uniform (at once,
// without the search, when plain k-means does not cut the error by 1 dB either, on tensors of 16
// values a level or more). (At 256 levels an entropy-coded uniform grid is within a fraction of a
// dB of any design of the same entropy, so Auto mostly keeps it: on the corpus models, everywhere.)
// Palette KMeans drops the entropy penalty and the 1 dB bar: more accurate, but it can compress worse.

enum class Form : uint8_t {
  Fold,  // Cast -> Mul (-> Add) (-> Reshape): valid at the model's own opset (>= 7); onnxruntime
         // folds it into a float constant when the session is created, so inference speed is
         // unchanged (weights are fp32 in memory after load). Its float offsets also carry the
         // bias correction: each group's offset absorbs the mean of its rounding errors (groups
         // holding an exact zero excepted), so rounding shifts no channel's output.
  Dq,    // DequantizeLinear: per tensor needs opset 10, per axis 13, blocks 21. The default-domain
         // opset is raised when no operator in the model changed meaning in between (reported);
         // otherwise shrink() refuses and suggests Fold. DequantizeLinear is not constant-folded by
         // onnxruntime, so it runs on every inference (except where it fuses into MatMulNBits).
};

// Float tensors under `min_elements` values (biases, norms, small kernels), in int8 mode.
enum class SmallTensors : uint8_t {
  Auto,  // Fp16 when large tensors are shrunk (a model with none comes back unchanged), except with
         // scheme Tensor (the original tool's output, which keeps them)
  Fp16,  // float32 ones (of 64 values or more) stored as float16 with a Cast back to float32 (folded
         // at load), where float16 holds them: no value past its range, integer values exact, and
         // 60 dB or better (about 70 for most). Half their bytes, at an error far below the codes'
  Keep,  // left alone
};

// Where tensor bytes go in the output.
enum class ExternalData : uint8_t {
  Auto,      // inline when the input has no external data or the result fits in 2 GB
  Inline,    // everything inside the model file (fails if that exceeds the 2 GB protobuf limit)
  External,  // initializers of `external_threshold` bytes or more go to `external_sink`
};

struct Options {
  Mode mode = Mode::Int8;
  Scheme scheme = Scheme::Auto;
  Form form = Form::Fold;
  uint32_t levels = 256;               // palette: 2..65536 distinct values per tensor
  uint32_t block = 0;                  // int8: 0 = per channel; 16..4096 (a power of two) = values
                                       // per block along the reduction axis
  uint64_t min_elements = 16384;       // smaller tensors get no 8-bit codes (see `small`)
  uint32_t bits = 0;                   // int8: bits per value of the codes. 8: plain 8-bit codes.
                                       // 2 ... 7: codes in a narrower range, still one int8 each
                                       // (the same chain): the raw size is that of 8 bits, but
                                       // gzip and brotli store about `bits` bits per value (the
                                       // codes' entropy). Codebooks need 8: those tensors take
                                       // uniform or separable codes instead.
                                       // 9, 10, 12, 16 (fold form): each code's low bits are
                                       // stored packed beside its 8-bit code (n * (bits - 8) / 8
                                       // more bytes), and the graph adds them back; each bit
                                       // halves the rounding error. 0 (auto): 8, and a 9th and a
                                       // 10th bit for as many tensors as the bytes that `small`
                                       // saves pay for, lowest estimated SQNR first: the result
                                       // is never larger than with 8 and the small tensors
                                       // kept (SmallTensors::Keep). Codebooks keep 8; so do
                                       // models below opset 10 (whose Mod the graph needs).
  SmallTensors small = SmallTensors::Auto;
  // int8: bits for named tensors (of at least min_elements values), instead of `bits` (0: auto):
  // a different bit depth per tensor, as a target search gives it. A name that is no float tensor
  // of the model is an error.
  std::vector<std::pair<std::string, uint32_t>> tensor_bits;
  std::vector<std::string> exclude;        // tensor names to leave alone
  std::vector<std::string> exclude_nodes;  // node names: the weights they consume are left alone
  std::vector<std::string> exclude_ops;    // op types: the weights they consume are left alone
  uint32_t rounding_draw = 0;          // int8, fold form: 0 = the standard grid. N > 0 shifts every
                                       // group's grid by a pseudo-random fraction of a step drawn
                                       // from N and rounds again: an equally good rounding of the
                                       // same weights (codebooks and groups holding an exact zero
                                       // excepted). For measuring how much a model's output error
                                       // depends on rounding alone (bench/); not a quality knob.
                                       // Native builds only (the WebAssembly module refuses it).

  ExternalData external = ExternalData::Auto;
  std::string external_location;        // file name written into the model (e.g. "model.onnx.data")
  uint64_t external_threshold = 1024;   // smaller tensors stay inline
  uint32_t external_alignment = 4096;   // offset of every external tensor (for memory mapping)
};

// Checks option values; throws Error(BadOption) naming the first bad one.
void validate(const Options& options);

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

enum class ErrorCode : uint8_t {
  BadOption,            // an option value is out of range or contradicts another
  NotOnnx,              // the bytes are not an ONNX ModelProto at all
  Truncated,            // the file ends inside a field
  Malformed,            // an ONNX model whose structure or contents are invalid
  Unsupported,          // valid, but this engine cannot do what was asked (the message says why)
  ExternalDataMissing,  // a tensor's external data file was not supplied
  ExternalDataInvalid,  // an external data file is too short, or a reference is out of range
  TooLarge,             // the result would exceed a format limit (2 GB protobuf)
  Io,                   // a source or sink failed
  Cancelled,            // the progress callback asked to stop
};

// Stable identifier for `code` ("NOT_ONNX", "TRUNCATED", ...), used by the JS front ends.
const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code(code) {}
  ErrorCode code;
};

// ---------------------------------------------------------------------------------------------
// Bytes in and out
// ---------------------------------------------------------------------------------------------

// Random-access read-only bytes: a model file or an external-data file.
class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  // The whole content when it is in memory (then reads are free views); otherwise nullptr.
  virtual const uint8_t* data() const { return nullptr; }
  // Copies [offset, offset + length) into `destination`; the range is always inside size().
  // Throws Error(Io) if the bytes cannot be read.
  virtual void read(uint64_t offset, void* destination, size_t length) const = 0;
};

// A view of bytes in memory. The bytes must outlive the source; they are never modified.
class MemorySource final : public Source {
 public:
  MemorySource(const void* bytes, uint64_t size)
      : bytes_(static_cast<const uint8_t*>(bytes)), size_(size) {}
  uint64_t size() const override { return size_; }
  const uint8_t* data() const override { return bytes_; }
  void read(uint64_t offset, void* destination, size_t length) const override;

 private:
  const uint8_t* bytes_;
  uint64_t size_;
};

// A source read through a callback: read(offset, destination, length). For files and Blobs.
class CallbackSource final : public Source {
 public:
  using Reader = std::function<void(uint64_t offset, void* destination, size_t length)>;
  CallbackSource(uint64_t size, Reader reader) : size_(size), reader_(std::move(reader)) {}
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* destination, size_t length) const override {
    reader_(offset, destination, length);
  }

 private:
  uint64_t size_;
  Reader reader_;
};

// Where output bytes go, in order.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(const void* bytes, size_t length) = 0;
  // Called once with the exact number of bytes that will follow, before the first write.
  virtual void expect(uint64_t /*total*/) {}
};

// Collects the output in memory (reserving the exact size up front).
class VectorSink final : public Sink {
 public:
  void write(const void* bytes, size_t length) override;
  void expect(uint64_t total) override { bytes.reserve(static_cast<size_t>(total)); }
  std::vector<uint8_t> bytes;
};

// Finds the external-data files a model's tensors name (their `location`).
class ExternalResolver {
 public:
  virtual ~ExternalResolver() = default;
  // The source for file `location`, or nullptr when the caller does not have it (which becomes
  // Error(ExternalDataMissing) naming file and tensor).
  virtual const Source* find(const std::string& location) = 0;
};

// Told how the work proceeds.
class Progress {
 public:
  virtual ~Progress() = default;
  // The fraction done (0..1) and the current stage ("reading", "encoding", "writing"). Return
  // false to stop: the call then throws Error(Cancelled).
  virtual bool report(double fraction, const char* stage) = 0;
};

// (Interfaces, as Source and Sink, rather than std::function: in WebAssembly each std::function
// target costs the downloaded module about 0.4 KB.)
struct Io {
  ExternalResolver* external = nullptr;  // for models with external data
  Sink* external_sink = nullptr;         // receives the external data file when it is written
  Progress* progress = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

struct ValueInfo {  // a graph input or output of the main graph
  std::string name;
  std::string dtype;                 // "float32", "int64", ... ("" when not a tensor)
  std::vector<int64_t> shape;        // -1 where the dimension is symbolic or unknown
  std::vector<std::string> symbols;  // per dimension: the symbolic name, or ""
  bool has_shape = false;
};

struct TensorReport {
  std::string name;
  std::string graph;      // "main", or the path of a subgraph: "main/If_0:then_branch"
  std::string location;   // "initializer" or "constant" (a Constant node's value)
  std::string node;       // the Constant node's name, when location == "constant"
  std::string dtype;      // "float32", "float16", "bfloat16", "float64"
  std::vector<int64_t> shape;
  std::vector<std::string> consumers;  // op types that read it
  uint64_t bytes_before = 0;  // the tensor's data bytes in the input
  uint64_t bytes_after = 0;   // the data bytes of what replaces it (codes, scales, offsets)
  bool changed = false;
  std::string reason;         // why it was left alone, when !changed
  std::string scheme;         // int8: "channel", "separable", "codebook", "block", "tensor";
                              // palette: "kmeans", "ecsq", "uniform"
  int64_t axis = -1;          // int8 channel axis; -1 per tensor
  int64_t factor_axis = -1;   // separable scales: the axis of the second factor
  uint32_t block = 0;
  uint32_t levels = 0;        // palette: distinct values used
  uint32_t bits = 0;          // int8: bits per value (2 ... 8, or more with low bits)
  uint64_t entropy_bytes = 0;  // int8: the stored codes' entropy in bytes (order 0, over the tensor's
                               // code bytes; low bits at their width): about what gzip and brotli
                               // store for them
  double sqnr_db = 0;         // 10 log10(sum x^2 / sum (x - x')^2)
  bool exact = false;         // no error at all (sqnr is infinite)
};

struct OpsetChange {
  std::string domain;  // "" = ai.onnx
  int64_t from = 0, to = 0;
  std::string reason;
};

struct Report {
  std::string mode;        // "int8", "palette", "expand", "inspect"
  int64_t ir_version = 0;
  int64_t ir_version_after = 0;
  std::vector<std::pair<std::string, int64_t>> opsets;  // the input's opset imports
  std::string producer;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<TensorReport> tensors;  // float tensors of at least min_elements values
  std::vector<OpsetChange> opset_changes;
  std::vector<std::string> removed_inputs;  // graph inputs that were initializer defaults
  uint64_t model_bytes_before = 0, model_bytes_after = 0;
  uint64_t external_bytes_before = 0, external_bytes_after = 0;
  uint64_t weight_bytes_before = 0, weight_bytes_after = 0;  // over changed tensors
  uint64_t small_tensors = 0, small_tensor_bytes = 0;  // float tensors under min_elements
  uint64_t small_tensors_fp16 = 0;       // of those, stored as float16 (SmallTensors)
  std::vector<std::pair<std::string, std::string>> float16_tensors;  // those, by name and graph path
  uint64_t small_tensor_bytes_after = 0;  // the small tensors' data bytes in the result
  uint32_t tensors_changed = 0;
  bool unchanged = false;   // the output is byte-identical to the input
  std::string summary;      // one sentence for people
};

// The report as JSON (UTF-8, camelCase keys), as the CLI and the JS API give it.
std::string to_json(const Report& report);

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

// Shrinks `model` into `out`. With `out` == nullptr nothing is written, but everything else is
// done, so the report (with the SQNR of every tensor) describes what shrink would produce.
Report shrink(const Source& model, const Options& options, Sink* out, const Io& io = {});

// Turns a shrunk model back into plain float weights: folds DequantizeLinear on constants (per
// tensor, per axis, blocked), the Cast -> Mul (-> Add) (-> Reshape) chains shrink writes (with the
// low bits of codes over 8 bits added back), codebook Gathers, and every Cast of a float16
// constant to float32, into a float tensor, computed as onnxruntime computes it. Chains of other
// forms are left as they are (src/expand.cpp lists them).
// For runtimes where DequantizeLinear would run on every inference, or to diff against the
// original.
Report expand(const Source& model, Sink& out, const Io& io = {});

// Version of the engine, "MAJOR.MINOR.PATCH".
const char* version();

}  // namespace onnx_shrink
