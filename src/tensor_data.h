// Reads a tensor's values, wherever and however they are stored: raw_data, float_data,
// double_data, fp16/bf16 bit patterns in int32_data, or an external data file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "byte_buffer.h"
#include "index.h"
#include "name_order.h"

namespace onnx_shrink {

class TensorData {
 public:
  TensorData(proto::Window& model, ExternalResolver* resolver) : model_(model), resolver_(resolver) {}

  // Checks that the tensor's data can be read (external file supplied, range inside it, length
  // consistent with the shape), so that problems surface before any output is written.
  void check(const TensorInfo& t);

  // The values as little-endian fp32 bytes: a view into the model when the source is in memory
  // and the data is stored as fp32, otherwise converted into an internal buffer. Valid until the
  // next call.
  const uint8_t* floats(const TensorInfo& t);

  // The data as raw little-endian bytes of the tensor's own type, as raw_data would hold them
  // (raw, float_data, double_data and external tensors only). Valid until the next call.
  const uint8_t* raw(const TensorInfo& t);

  // Bytes of the raw layout (elements x element size).
  static uint64_t raw_size(const TensorInfo& t);

 private:
  const Source& external(const TensorInfo& t);
  const uint8_t* stored(const TensorInfo& t);

  proto::Window& model_;
  ExternalResolver* resolver_;
  std::map<std::string, const Source*, NameOrder> externals_;
  ByteBuffer stored_, converted_;
};

}  // namespace onnx_shrink
