// Elementwise helpers of the separable and codebook schemes: scaling along an axis, turning codes
// back into values, and measuring the error exactly.
#include <cmath>
#include <vector>

#include "kernels.h"
#include "slices.h"

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

void weighted_error(const uint8_t* u, const int8_t* q, size_t n, const Int8Params& p, const float* weights, size_t period,
                    float weight, ErrorSums& e, const uint8_t* low) {
  const float step = static_cast<float>(1 << p.bits);  // of the top 8 bits, in codes
  double signal = 0, noise = 0;
  for (size_t i = 0; i < n; ++i) {
    const float code = low ? static_cast<float>(q[i]) * step + static_cast<float>(low[i]) : static_cast<float>(q[i]);
    const float v = load_f32(u + 4 * i), d = v - (code * p.scale + p.offset);
    const float w = weights ? weights[i % period] : weight;
    signal += double(w) * v * v;
    noise += double(w) * d * d;
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

inline void scale_columns_whole(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out) {
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

void scale_columns(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out) {
  for_slices(rows, rows_per_slice(cols), [&](size_t b, size_t e) {
    scale_columns_whole(x + 4 * b * cols, e - b, cols, factors, out + 4 * b * cols);
  });
}

void error_sums(const uint8_t* x, const uint8_t* y, size_t n, ErrorSums& e) {
  size_t i = 0;
  while (i + 4 <= n) {
    // Float lanes for up to 4096 values, then into the double totals.
    v4::f32 signal = v4::splat(0), noise = v4::splat(0);
    const size_t start = i, stop = std::min(n & ~size_t(3), i + 4096);
    for (; i < stop; i += 4) {
      const v4::f32 v = v4::load(x + 4 * i), d = v4::sub(v, v4::load(y + 4 * i));
      signal = v4::add(signal, v4::mul(v, v));
      noise = v4::add(noise, v4::mul(d, d));
    }
    float s = 0, z = 0;
    for (int k = 0; k < 4; ++k) s += v4::lane(signal, k), z += v4::lane(noise, k);
    if (std::isfinite(s) && std::isfinite(z)) {
      for (int k = 0; k < 4; ++k) e.signal += v4::lane(signal, k), e.noise += v4::lane(noise, k);
    } else {
      scalar::error_sums(x + 4 * start, y + 4 * start, i - start, e);  // values past 1.8e19 square past float32
    }
  }
  scalar::error_sums(x + 4 * i, y + 4 * i, n - i, e);
}

void weighted_error(const uint8_t* u, const int8_t* q, size_t n, const Int8Params& p, const float* weights, size_t period,
                    float weight, ErrorSums& e, const uint8_t* low) {
  if (weights && period % 4 != 0) return scalar::weighted_error(u, q, n, p, weights, period, weight, e, low);
  const v4::f32 s = v4::splat(p.scale), o = v4::splat(p.offset), step = v4::splat(static_cast<float>(1 << p.bits));
  v4::f32 w = v4::splat(weight);
  size_t i = 0;
  while (i + 4 <= n) {
    v4::f32 signal = v4::splat(0), noise = v4::splat(0);
    const size_t stop = std::min(n & ~size_t(3), i + 4096);
    for (; i < stop; i += 4) {
      if (weights) w = v4::load(reinterpret_cast<const uint8_t*>(weights + i % period));
      const v4::f32 v = v4::load(u + 4 * i);
      v4::f32 code = v4::load_i8x4_as_float(reinterpret_cast<const uint8_t*>(q + i));
      if (low) code = v4::add(v4::mul(code, step), v4::load_u8x4_as_float(low + i));  // exact: at most 8 bits each
      const v4::f32 d = v4::sub(v, v4::add(v4::mul(code, s), o));
      signal = v4::add(signal, v4::mul(w, v4::mul(v, v)));
      noise = v4::add(noise, v4::mul(w, v4::mul(d, d)));
    }
    for (int k = 0; k < 4; ++k) e.signal += v4::lane(signal, k), e.noise += v4::lane(noise, k);
  }
  scalar::weighted_error(u + 4 * i, q + i, n - i, p, weights ? weights + i % period : nullptr, period, weight, e,
                         low ? low + i : nullptr);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
