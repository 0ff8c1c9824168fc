// Min/max scans, with detection of NaN and infinity (such tensors are left alone by the planner).
#include "kernels.h"
#include "slices.h"

namespace onnx_shrink::kernels {

namespace scalar {

void minmax(const uint8_t* x, size_t n, float& mn, float& mx, bool& finite) {
  float lo = mn, hi = mx;
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {
    const float v = load_f32(x + 4 * i);
    ok &= finite_f32(v);
    lo = min_f32(lo, v);
    hi = max_f32(hi, v);
  }
  mn = lo;
  mx = hi;
  finite = finite && ok;
}

void minmax_columns(const uint8_t* x, size_t rows, size_t cols, float* mins, float* maxs, bool& finite) {
  bool ok = true;
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* row = x + 4 * r * cols;
    for (size_t c = 0; c < cols; ++c) {
      const float v = load_f32(row + 4 * c);
      ok &= finite_f32(v);
      mins[c] = min_f32(mins[c], v);
      maxs[c] = max_f32(maxs[c], v);
    }
  }
  finite = finite && ok;
}

}  // namespace scalar

#if ONNX_SHRINK_SIMD
namespace simd {

inline void minmax_whole(const uint8_t* x, size_t n, float& mn, float& mx, bool& finite) {
  size_t i = 0;
  float lo = mn, hi = mx;
  if (n >= 16) {
    // Four independent accumulators hide the latency of min/max.
    v4::f32 l0 = v4::splat(lo), l1 = l0, l2 = l0, l3 = l0;
    v4::f32 h0 = v4::splat(hi), h1 = h0, h2 = h0, h3 = h0;
    v4::i32 bad = v4::isplat(0);
    for (; i + 16 <= n; i += 16) {
      const v4::f32 a = v4::load(x + 4 * i), b = v4::load(x + 4 * i + 16);
      const v4::f32 c = v4::load(x + 4 * i + 32), d = v4::load(x + 4 * i + 48);
      bad = v4::bor(bad, v4::bor(v4::bor(v4::nonfinite_mask(a), v4::nonfinite_mask(b)),
                                 v4::bor(v4::nonfinite_mask(c), v4::nonfinite_mask(d))));
      l0 = v4::min(l0, a), l1 = v4::min(l1, b), l2 = v4::min(l2, c), l3 = v4::min(l3, d);
      h0 = v4::max(h0, a), h1 = v4::max(h1, b), h2 = v4::max(h2, c), h3 = v4::max(h3, d);
    }
    if (v4::any(bad)) finite = false;
    const v4::f32 l = v4::min(v4::min(l0, l1), v4::min(l2, l3));
    const v4::f32 h = v4::max(v4::max(h0, h1), v4::max(h2, h3));
    for (int k = 0; k < 4; ++k) {
      lo = min_f32(lo, v4::lane(l, k));
      hi = max_f32(hi, v4::lane(h, k));
    }
  }
  mn = lo;
  mx = hi;
  scalar::minmax(x + 4 * i, n - i, mn, mx, finite);
}

void minmax(const uint8_t* x, size_t n, float& mn, float& mx, bool& finite) {
  for_slices(n, kSlice, [&](size_t b, size_t e) { minmax_whole(x + 4 * b, e - b, mn, mx, finite); });
}

inline void minmax_columns_whole(const uint8_t* x, size_t rows, size_t cols, float* mins, float* maxs, bool& finite) {
  const size_t wide = cols & ~size_t(3);
  v4::i32 bad = v4::isplat(0);
  size_t r = 0;
  // Four rows at a time, each column's running min and max loaded and stored once for the four
  // (the same results: for finite values min and max are the same in any order, and a NaN or an
  // infinity makes `finite` false, which leaves the tensor alone).
  for (; r + 4 <= rows && wide == cols; r += 4) {
    const uint8_t* row = x + 4 * r * cols;
    const size_t stride = 4 * cols;
    for (size_t c = 0; c < wide; c += 4) {
      const uint8_t* p = row + 4 * c;
      const v4::f32 a = v4::load(p), b = v4::load(p + stride), d = v4::load(p + 2 * stride), e = v4::load(p + 3 * stride);
      bad = v4::bor(bad, v4::bor(v4::bor(v4::nonfinite_mask(a), v4::nonfinite_mask(b)),
                                 v4::bor(v4::nonfinite_mask(d), v4::nonfinite_mask(e))));
      uint8_t* lo = reinterpret_cast<uint8_t*>(mins + c);
      uint8_t* hi = reinterpret_cast<uint8_t*>(maxs + c);
      v4::store(lo, v4::min(v4::min(v4::load(lo), v4::min(a, b)), v4::min(d, e)));
      v4::store(hi, v4::max(v4::max(v4::load(hi), v4::max(a, b)), v4::max(d, e)));
    }
  }
  for (; r < rows; ++r) {
    const uint8_t* row = x + 4 * r * cols;
    for (size_t c = 0; c < wide; c += 4) {
      const v4::f32 v = v4::load(row + 4 * c);
      bad = v4::bor(bad, v4::nonfinite_mask(v));
      v4::store(reinterpret_cast<uint8_t*>(mins + c), v4::min(v4::load(reinterpret_cast<uint8_t*>(mins + c)), v));
      v4::store(reinterpret_cast<uint8_t*>(maxs + c), v4::max(v4::load(reinterpret_cast<uint8_t*>(maxs + c)), v));
    }
    if (wide < cols) scalar::minmax_columns(row + 4 * wide, 1, cols - wide, mins + wide, maxs + wide, finite);
  }
  if (v4::any(bad)) finite = false;
}

void minmax_columns(const uint8_t* x, size_t rows, size_t cols, float* mins, float* maxs, bool& finite) {
  for_slices(rows, rows_per_slice(cols), [&](size_t b, size_t e) {
    minmax_columns_whole(x + 4 * b * cols, e - b, cols, mins, maxs, finite);
  });
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
