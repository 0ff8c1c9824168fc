// A scratch buffer of bytes that grows and never zero-fills.
//
// std::vector<uint8_t>::resize writes zeros over every byte it adds, and a buffer reused for
// tensors of different sizes adds them again after each smaller one: measured at a fifth of the
// wasm engine's time on a 150 MB model. Every byte of these buffers is written before it is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace onnx_shrink {

class ByteBuffer {
 public:
  // Makes the buffer `n` bytes long; the contents are unspecified afterwards.
  uint8_t* resize(size_t n) {
    if (n > capacity_) {
      data_.reset(new uint8_t[n]);  // default-initialised: no zeros written
      capacity_ = n;
    }
    size_ = n;
    return data_.get();
  }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0, size_ = 0;
};

}  // namespace onnx_shrink
