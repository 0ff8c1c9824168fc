// The entry points: index -> plan -> encode -> write.
#include <algorithm>
#include <cstring>

#include "code_format.h"
#include "encode.h"
#include "index.h"
#include "option_words.h"
#include "plan.h"
#include "rounding_draw.h"
#include "proto/onnx_fields.h"
#include "write.h"

namespace onnx_shrink {

const char* version() { return ONNX_SHRINK_VERSION; }  // package.json's, set by CMakeLists.txt

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::BadOption: return "BAD_OPTION";
    case ErrorCode::NotOnnx: return "NOT_ONNX";
    case ErrorCode::Truncated: return "TRUNCATED";
    case ErrorCode::Malformed: return "MALFORMED";
    case ErrorCode::Unsupported: return "UNSUPPORTED";
    case ErrorCode::ExternalDataMissing: return "EXTERNAL_DATA_MISSING";
    case ErrorCode::ExternalDataInvalid: return "EXTERNAL_DATA_INVALID";
    case ErrorCode::TooLarge: return "TOO_LARGE";
    case ErrorCode::Io: return "IO";
    case ErrorCode::Cancelled: return "CANCELLED";
  }
  return "UNKNOWN";
}

void MemorySource::read(uint64_t offset, void* destination, size_t length) const {
  if (offset > size_ || length > size_ - offset) throw Error(ErrorCode::Io, "read past the end of the input");
  std::memcpy(destination, bytes_ + offset, length);
}

void VectorSink::write(const void* data, size_t length) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  bytes.insert(bytes.end(), p, p + length);
}

void validate(const Options& o) {
  auto bad = [](const std::string& message) { throw Error(ErrorCode::BadOption, message); };
  if (o.mode == Mode::Palette) {
    if (o.levels < 2 || o.levels > 65536) bad("levels must be between 2 and 65536 (got " + std::to_string(o.levels) + ")");
    if (o.scheme == Scheme::Channel || o.scheme == Scheme::Tensor) {
      bad("scheme 'channel' and 'tensor' apply to int8 mode; palette mode takes auto, kmeans or uniform");
    }
    if (o.block) bad("block applies to int8 mode, not palette mode");
    if (o.form != Form::Fold) bad("form applies to int8 mode: palette mode does not change the graph");
  } else {
    if (o.scheme == Scheme::KMeans || o.scheme == Scheme::Uniform) {
      bad("scheme 'kmeans' and 'uniform' apply to palette mode; int8 mode takes auto, channel or tensor");
    }
    if (o.block && (o.block < 16 || o.block > 4096 || (o.block & (o.block - 1)))) {
      bad("block must be a power of two from 16 to 4096, or 0 for per-channel scales (got " + std::to_string(o.block) + ")");
    }
    if (o.block && o.scheme == Scheme::Tensor) bad("block and scheme 'tensor' exclude each other");
  }
  if (o.bits != 0 && !format_with_bits(o.bits)) bad("bits must be " + bits_words() + " (got " + std::to_string(o.bits) + ")");
  // (Each tensor's bits are checked with the model: selection.cpp. Above 8 in the DequantizeLinear
  // form, a tensor keeps 8, as the report says.)
  if (!o.tensor_bits.empty() && (o.mode == Mode::Palette || o.scheme == Scheme::Tensor)) {
    bad(o.mode == Mode::Palette ? "tensor bits apply to int8 mode; palette mode takes levels" : "tensor bits apply to int8 mode, not to scheme 'tensor'");
  }
  if (o.bits > 8 && o.form == Form::Dq) bad("bits above 8 need the fold form: DequantizeLinear takes 8-bit codes");
  if (o.bits && o.bits != 8 && o.scheme == Scheme::Tensor) bad("scheme 'tensor' is the original tool's 8-bit formula: it takes no other bits");
  if (o.mode == Mode::Palette && o.bits) bad("bits applies to int8 mode; palette mode takes levels");
  if (o.mode == Mode::Palette && o.small == SmallTensors::Fp16) bad("small applies to int8 mode: palette mode keeps every tensor's type");
  // Rounding draws: the native build's measuring tool (bench/); the WebAssembly build is spared its words.
  if constexpr (kRoundingDraws) {
    if (o.rounding_draw && o.mode != Mode::Int8) bad("rounding draw applies to int8 mode");
    if (o.rounding_draw && o.form == Form::Dq) {
      bad("rounding draw needs the fold form: a shifted grid has no integer zero point for DequantizeLinear");
    }
  } else if (o.rounding_draw) {
    bad("rounding draws: native build only");  // (the JS API has no such option)
  }
  if (o.external_alignment == 0 || (o.external_alignment & (o.external_alignment - 1)) || o.external_alignment > (1u << 20)) {
    bad("external alignment must be a power of two up to 1 MiB");
  }
  if (o.external == ExternalData::External && o.external_location.empty()) {
    bad("external data output needs a file name (external_location)");
  }
  if (o.external_location.find('/') != std::string::npos || o.external_location.find('\\') != std::string::npos ||
      o.external_location == ".." || o.external_location == ".") {
    bad("the external data file name must be a plain file name, without folders");
  }
}

namespace {

bool fits_inline(const Plan& plan) { return plan.output_size <= 2147483647u; }

// Large 8-bit tensors and no large float ones: a model shrunk before, or quantized by another tool.
bool holds_8bit_weights(const ModelIndex& index, uint64_t min_elements) {
  for (const TensorInfo& t : index.tensors) {
    if ((t.data_type == onnx::kInt8 || t.data_type == onnx::kUint8) && t.elements >= min_elements) return true;
  }
  return false;
}

void finish_report(Report& r, const ModelIndex& index, const Options& options, bool written) {
  if (r.unchanged) {
    if (r.tensors.empty() && holds_8bit_weights(index, options.min_elements)) {
      r.summary = "Nothing to shrink: its large tensors hold 8-bit values already (shrunk before, or quantized).";
    } else if (r.tensors.empty()) {
      r.summary = "Nothing to shrink: no float tensor has " + std::string("enough values (see min_elements)") + ".";
    } else {
      r.summary = "Nothing to shrink: every large float tensor was left alone (see the reasons per tensor).";
    }
    return;
  }
  r.summary = std::string(written ? "Shrank " : "Would shrink ") + std::to_string(r.tensors_changed) + " tensor" + (r.tensors_changed == 1 ? "" : "s") +
              ": model " + std::to_string(r.model_bytes_before + r.external_bytes_before) + " -> " +
              std::to_string(r.model_bytes_after + r.external_bytes_after) + " bytes.";
  if (r.small_tensors_fp16) r.summary += " Small tensors in float16: " + std::to_string(r.small_tensors_fp16) + ".";
  if (options.external == ExternalData::External && r.external_bytes_after == 0) {
    r.summary += " No tensor went to external data: the model's weights are Constant nodes' values, which stay in their nodes, "
                 "or have fewer bytes than the external threshold.";
  }
}

}  // namespace

Report shrink(const Source& model, const Options& options, Sink* out, const Io& io) {
  validate(options);
  proto::Window window(model);
  const ModelIndex index = index_model(window);
  TensorData data(window, io.external);

  // Auto keeps everything inline unless the result would not fit in one protobuf file.
  bool external = options.external == ExternalData::External;
  Plan plan;
  if (options.external == ExternalData::Auto) {
    try {
      plan = plan_shrink(index, data, options, false, io.progress);
    } catch (const Error& e) {
      if (e.code != ErrorCode::TooLarge || options.external_location.empty()) throw;
      external = true;
    }
    if (!external && !fits_inline(plan)) external = !options.external_location.empty();
    if (external) plan = plan_shrink(index, data, options, true, io.progress);
  } else {
    plan = plan_shrink(index, data, options, external, io.progress);
  }

  Encoder encoder(index, data, plan);
  if (out) {
    write_output(window, plan, encoder, *out, io.external_sink, io.progress);
  } else {
    encode_only(plan, encoder, io.progress);
  }
  finish_report(plan.report, index, options, out != nullptr);
  return std::move(plan.report);
}

}  // namespace onnx_shrink
