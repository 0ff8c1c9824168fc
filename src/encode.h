// The encoder: produces the payloads of a plan while the writer streams the output.
#pragma once

#include <vector>

#include "byte_buffer.h"
#include "kernels/kernels.h"
#include "plan.h"

namespace onnx_shrink {

class Encoder {
 public:
  Encoder(const ModelIndex& index, TensorData& data, Plan& plan) : index_(index), data_(data), plan_(plan) {}
  virtual ~Encoder() = default;
  // Writes exactly payload.size bytes to `out`. Fills the item's report entry (SQNR, levels).
  virtual void write(const Payload& payload, Sink& out);

 protected:
  const ModelIndex& index_;
  TensorData& data_;
  Plan& plan_;

 private:
  void int8(int32_t item);
  void codebook(const uint8_t* values, uint64_t n);
  std::vector<float> separable_row_weights(const Int8Layout& l, const std::vector<int64_t>& dims) const;
  void palette(int32_t item, const Payload& payload, Sink& out);
  void half(int32_t item, const Payload& payload, Sink& out);

  // The item encoded last: its codes were written, its scales and offsets follow.
  int32_t current_ = -1;
  Scratch<int8_t> codes_;
  Scratch<uint8_t> low_;             // low bits of the codes, one per value,
  std::vector<uint8_t> packed_low_;  // and packed
  std::vector<float> scales_, offsets_;
  std::vector<int8_t> zeros_;
  std::vector<float> factors_, table_;
  ByteBuffer normalized_, reconstructed_, out_;
  Scratch<uint16_t> indices_;
  Scratch<int32_t> seed_;
};

// 10 log10(signal / noise); `exact` when there is no noise.
void set_sqnr(TensorReport& report, double signal, double noise);

}  // namespace onnx_shrink
