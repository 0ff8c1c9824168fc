// expand()'s chains: what a dequantization chain found in a graph is, and its evaluation, computed
// as onnxruntime computes it (fp32 IEEE operations in the same order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "byte_buffer.h"
#include "code_format.h"
#include "index.h"
#include "proto/onnx_fields.h"
#include "proto/wire.h"
#include "tensor_data.h"

namespace onnx_shrink {
namespace expansion {

struct Step {
  // PartBegin sets the value aside and starts from its constant (a second chain, inline: the low
  // bits of codes over 8 bits); AddPart adds what that made to the value set aside.
  // (The first ten in ChainOp's order: step_kind is a cast.)
  enum Kind : uint8_t { CastTo, Dequantize, Mul, Add, Sub, Div, Mod, Floor, Reshape, Lookup, PartBegin, AddPart } kind;
  int32_t node = -1;
  int32_t constant = -1;   // the second operand (scale, factor, shape)
  int32_t zero = -1;       // DequantizeLinear zero point
  int64_t axis = 1, block = 0;
  int32_t to = 0;          // Cast target
};

struct Chain {
  int32_t graph = -1;
  int32_t codes = -1;  // tensor index of the integer (or float16) constant
  std::vector<Step> steps;
  std::string output;
  int32_t out_type = onnx::kFloat;
  std::vector<int64_t> out_dims;
  int32_t report = -1;
};

struct Stage;  // one step of stream() (evaluate.cpp)

struct Array {
  std::vector<int64_t> dims;
  std::vector<float> values;
};

// The step that an op of the chains' vocabulary is (Cast -> CastTo, Gather -> Lookup, ...).
Step::Kind step_kind(ChainOp op);

bool is_integer_type(int32_t t);
// Numpy broadcasting of two shapes; false when they do not broadcast.
bool broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>& out);

// n values as `type` (a float type), little-endian, to `out`.
void write_values(const float* v, size_t n, int32_t type, Sink& out);

// Evaluates chains: reads their constants (integers converted exactly as Cast would) and applies
// their steps.
class Expander {
 public:
  Expander(const ModelIndex& index, TensorData& data, proto::Window& window) : index_(index), data_(data), window_(window) {}

  // A small or large constant as floats.
  Array load(int32_t tensor);
  // The bits of a digit of low bits unpacked by Div(digits) -> Floor -> Mod(base) -> Div(base2)
  // (constants): 1, 2, 4 or 8 when the digits are 1, 2^bits, ... (8 / bits of them) and both bases
  // 2^bits; otherwise 0.
  uint32_t digit_bits(int32_t digits, int32_t base, int32_t base2);
  // An int64 constant's values (a Reshape's shape); empty for another type.
  std::vector<int64_t> load_shape(int32_t tensor);
  // The final values of a chain, a block at a time, as its output type, to `out`; with no `out`,
  // only whether it can (every chain that expand() takes must). `dims` gets the result's shape.
  bool stream(const Chain& c, Sink* out, std::vector<int64_t>& dims);

 private:
  bool reshaped(const std::vector<int64_t>& dims, int32_t shape_tensor, std::vector<int64_t>& out);
  bool dequantize_stage(const Step& s, const std::vector<int64_t>& dims, Stage& st);
  bool low_bits_stage(const Chain& c, size_t k, const std::vector<int64_t>& dims, std::vector<float>* packed, Stage& st);
  static void lookup(float* v, size_t n, const Array& table);
  static void round(float* v, size_t n, int32_t to);
  static float integer_value(int32_t type, int64_t v);
  static void load_codes(const TensorInfo& t, const uint8_t* raw, uint64_t first, size_t n, float* out);

  const ModelIndex& index_;
  TensorData& data_;
  proto::Window& window_;
  Scratch<float> block_;  // stream()'s block, reused from chain to chain (never zero-filled)
};

}  // namespace expansion
}  // namespace onnx_shrink
