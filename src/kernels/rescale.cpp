// Elementwise helpers of the separable and codebook schemes: scaling along an axis and measuring the
// error exactly.
#include <cmath>
#include <vector>

#include "kernels.h"
#include "slices.h"

namespace onnx_shrink::kernels {

namespace scalar {

void scale(const uint8_t* x, size_t n, float factor, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) store_f32(out + 4 * i, load_f32(x + 4 * i) * factor);
}

void scale_columns(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out, float* row_min, float* row_max) {
  for (size_t r = 0; r < rows; ++r) {
    float lo = cols ? load_f32(x + 4 * r * cols) * factors[0] : 0.0f, hi = lo;
    for (size_t c = 0; c < cols; ++c) {
      const size_t k = 4 * (r * cols + c);
      const float v = load_f32(x + k) * factors[c];
      store_f32(out + k, v);
      lo = min_f32(lo, v), hi = max_f32(hi, v);
    }
    if (row_min) row_min[r] = lo, row_max[r] = hi;
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

inline void scale_columns_whole(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out, float* row_min,
                                float* row_max) {
  const size_t wide = cols & ~size_t(3);
  for (size_t r = 0; r < rows; ++r) {
    const size_t row = 4 * r * cols;
    v4::f32 lo = v4::splat(cols ? load_f32(x + row) * factors[0] : 0.0f), hi = lo;
    for (size_t c = 0; c < wide; c += 4) {
      const v4::f32 f = v4::load(reinterpret_cast<const uint8_t*>(factors + c));
      const v4::f32 v = v4::mul(v4::load(x + row + 4 * c), f);
      v4::store(out + row + 4 * c, v);
      lo = v4::min(lo, v), hi = v4::max(hi, v);
    }
    // (The lanes start at the row's first value: one of its values, wide or not.)
    float least = v4::lane(lo, 0), largest = v4::lane(hi, 0);
    for (int k = 1; k < 4; ++k) least = min_f32(least, v4::lane(lo, k)), largest = max_f32(largest, v4::lane(hi, k));
    if (wide < cols) {
      float tail_lo, tail_hi;
      scalar::scale_columns(x + row + 4 * wide, 1, cols - wide, factors + wide, out + row + 4 * wide, &tail_lo, &tail_hi);
      least = min_f32(least, tail_lo), largest = max_f32(largest, tail_hi);
    }
    if (row_min) row_min[r] = least, row_max[r] = largest;
  }
}

void scale_columns(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out, float* row_min, float* row_max) {
  for_slices(rows, rows_per_slice(cols), [&](size_t b, size_t e) {
    scale_columns_whole(x + 4 * b * cols, e - b, cols, factors, out + 4 * b * cols, row_min ? row_min + b : nullptr,
                        row_max ? row_max + b : nullptr);
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

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
