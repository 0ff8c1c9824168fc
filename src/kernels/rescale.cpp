// Elementwise helpers of the separable and codebook schemes: scaling along an axis, turning codes
// back into values, and measuring the error exactly.
#include "kernels.h"

namespace onnx_shrink::kernels {

namespace scalar {

void scale(const uint8_t* x, size_t n, float factor, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) store_f32(out + 4 * i, load_f32(x + 4 * i) * factor);
}

void scale_columns(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      const size_t k = 4 * (r * cols + c);
      store_f32(out + k, load_f32(x + k) * factors[c]);
    }
  }
}

void dequantize(const int8_t* q, size_t n, const Int8Params& p, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) store_f32(out + 4 * i, static_cast<float>(q[i]) * p.scale + p.offset);
}

void dequantize_columns(const int8_t* q, size_t rows, size_t cols, const Int8Params* params, uint8_t* out) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) dequantize(q + r * cols + c, 1, params[c], out + 4 * (r * cols + c));
  }
}

void error_sums(const uint8_t* x, const uint8_t* y, size_t n, ErrorSums& e) {
  double signal = 0, noise = 0;
  for (size_t i = 0; i < n; ++i) {
    const float v = load_f32(x + 4 * i), d = v - load_f32(y + 4 * i);
    signal += double(v) * v;
    noise += double(d) * d;
  }
  e.signal += signal;
  e.noise += noise;
}

}  // namespace scalar

#if ONNX_SHRINK_SIMD
namespace simd {

void scale(const uint8_t* x, size_t n, float factor, uint8_t* out) {
  const v4::f32 f = v4::splat(factor);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) v4::store(out + 4 * i, v4::mul(v4::load(x + 4 * i), f));
  scalar::scale(x + 4 * i, n - i, factor, out + 4 * i);
}

void scale_columns(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out) {
  const size_t wide = cols & ~size_t(3);
  for (size_t r = 0; r < rows; ++r) {
    const size_t row = 4 * r * cols;
    for (size_t c = 0; c < wide; c += 4) {
      const v4::f32 f = v4::load(reinterpret_cast<const uint8_t*>(factors + c));
      v4::store(out + row + 4 * c, v4::mul(v4::load(x + row + 4 * c), f));
    }
    if (wide < cols) scalar::scale_columns(x + row + 4 * wide, 1, cols - wide, factors + wide, out + row + 4 * wide);
  }
}

void dequantize(const int8_t* q, size_t n, const Int8Params& p, uint8_t* out) {
  const v4::f32 s = v4::splat(p.scale), o = v4::splat(p.offset);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v4::f32 v = v4::to_float(v4::load_i8x4(reinterpret_cast<const uint8_t*>(q + i)));
    v4::store(out + 4 * i, v4::add(v4::mul(v, s), o));
  }
  scalar::dequantize(q + i, n - i, p, out + 4 * i);
}

void dequantize_columns(const int8_t* q, size_t rows, size_t cols, const Int8Params* params, uint8_t* out) {
  // Parameters as lanes, 4 columns at a time.
  const size_t wide = cols & ~size_t(3);
  for (size_t c = 0; c < wide; c += 4) {
    float sc[4], of[4];
    for (int k = 0; k < 4; ++k) sc[k] = params[c + k].scale, of[k] = params[c + k].offset;
    const v4::f32 s = v4::load(reinterpret_cast<const uint8_t*>(sc)), o = v4::load(reinterpret_cast<const uint8_t*>(of));
    for (size_t r = 0; r < rows; ++r) {
      const size_t k = r * cols + c;
      const v4::f32 v = v4::to_float(v4::load_i8x4(reinterpret_cast<const uint8_t*>(q + k)));
      v4::store(out + 4 * k, v4::add(v4::mul(v, s), o));
    }
  }
  if (wide < cols) {
    for (size_t r = 0; r < rows; ++r) {
      scalar::dequantize_columns(q + r * cols + wide, 1, cols - wide, params + wide, out + 4 * (r * cols + wide));
    }
  }
}

void error_sums(const uint8_t* x, const uint8_t* y, size_t n, ErrorSums& e) {
  size_t i = 0;
  while (i + 4 <= n) {
    // Float lanes for up to 4096 values, then into the double totals.
    v4::f32 signal = v4::splat(0), noise = v4::splat(0);
    const size_t stop = std::min(n & ~size_t(3), i + 4096);
    for (; i < stop; i += 4) {
      const v4::f32 v = v4::load(x + 4 * i), d = v4::sub(v, v4::load(y + 4 * i));
      signal = v4::add(signal, v4::mul(v, v));
      noise = v4::add(noise, v4::mul(d, d));
    }
    for (int k = 0; k < 4; ++k) e.signal += v4::lane(signal, k), e.noise += v4::lane(noise, k);
  }
  scalar::error_sums(x + 4 * i, y + 4 * i, n - i, e);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
