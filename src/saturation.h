// 8-bit codes whose value would round past the largest number of the tensor's type.
//
// A weight at the edge of its type's range (an fp16 mask or bias at -65504, fp32 values near
// FLT_MAX) comes back with up to a step of rounding error, and a value rounded outward past the
// largest finite number becomes infinity: in the fp32 arithmetic of the dequantization chain, or
// in the Cast back to fp16 or bf16 at its end. An infinite weight turns outputs into NaN. Such a
// code is moved one step inward, where the value is finite and within a step of the original.
// Ordinary weights are nowhere near these limits: a bound from the scales alone skips the check.
#pragma once

#include <cstdint>
#include <vector>

#include "int8_layout.h"

namespace onnx_shrink {

// What the dequantization chain of one tensor computes from its codes (see int8_layout.h).
struct Dequantization {
  const Int8Layout* layout = nullptr;
  Form form = Form::Fold;
  const std::vector<int64_t>* dims = nullptr;
  int32_t data_type = 0;            // the tensor's type: the chain's result is cast to it
  const float* scales = nullptr;    // per group (uniform, separable)
  const float* offsets = nullptr;   // per group (fold form)
  const int8_t* zeros = nullptr;    // per group (DequantizeLinear form)
  const float* factors = nullptr;   // separable or codebook factors, or nullptr
  const float* table = nullptr;     // codebook: 256 values
};

// Moves every code whose value is not finite in the tensor's type one step inward (more if
// needed). `values` are the tensor's values (fp32 bytes), for the error sums. Returns the number of
// codes moved; when any moved, or when `signal` or `noise` is not finite (the kernels sum in fp32
// lanes), they become the exact sums of x^2 and (x - x')^2.
uint64_t keep_codes_finite(const Dequantization& d, const uint8_t* values, int8_t* codes, uint64_t n, double& signal,
                           double& noise);

// Adds to the report entry's note how many values keep_codes_finite moved.
void note_rounded_inward(TensorReport& report, uint64_t moved, int32_t data_type);

}  // namespace onnx_shrink
