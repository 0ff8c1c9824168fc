// Scratch buffers (of bytes, or of other plain values) that grow and never zero-fill.
//
// std::vector<T>::resize writes zeros over every value it adds, and a buffer reused for
// tensors of different sizes adds them again after each smaller one: measured at a fifth of the
// wasm engine's time on a 150 MB model. Every value of these buffers is written before it is read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace onnx_shrink {

template <typename T>
class Scratch {
 public:
  // Makes the buffer `n` values long; the contents are unspecified afterwards.
  T* resize(size_t n) {
    if (n > capacity_) {
      data_.reset(new T[n]);  // default-initialised: no zeros written
      capacity_ = n;
    }
    size_ = n;
    return data_.get();
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }
  T& operator[](size_t k) { return data_[k]; }
  const T& operator[](size_t k) const { return data_[k]; }

 private:
  std::unique_ptr<T[]> data_;
  size_t capacity_ = 0, size_ = 0;
};

using ByteBuffer = Scratch<uint8_t>;

}  // namespace onnx_shrink
