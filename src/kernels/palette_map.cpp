// Palette kernels: the histogram the levels are chosen from, and the mapping of every value to its
// level. Both compute a value's bin the same way; the mapping then settles the exact level by
// comparing with the thresholds, so its result depends only on the value and the thresholds.
#include <cmath>

#include "kernels.h"

namespace onnx_shrink::kernels {

namespace {

// The bin of a value: trunc((v - min) * bin_scale) clamped to [0, bins - 1], NaN to 0, infinity
// to the last bin. The SIMD version computes exactly this.
inline uint32_t bin_of(float v, float min, float bin_scale, uint32_t bins) {
  float t = (v - min) * bin_scale;
  const float last = static_cast<float>(bins - 1);
  if (!(t > 0)) t = 0;
  if (t > last) t = last;
  return static_cast<uint32_t>(t);
}

// Sets bit b; true when it was not set before.
inline bool mark_bin(uint64_t* bitmap, uint32_t b) {
  const uint64_t bit = uint64_t{1} << (b & 63), word = bitmap[b >> 6];
  bitmap[b >> 6] = word | bit;
  return !(word & bit);
}

inline uint16_t settle(float v, uint32_t j, const float* thresholds, uint32_t levels) {
  while (j > 0 && v < thresholds[j - 1]) --j;
  while (j + 1 < levels && !(v < thresholds[j])) ++j;
  return static_cast<uint16_t>(j);
}

}  // namespace

namespace scalar {

void histogram(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, Bin* out) {
  for (size_t i = 0; i < n; ++i) {
    const float v = load_f32(x + 4 * i);
    Bin& b = out[bin_of(v, min, bin_scale, bins)];
    b.count += 1;
    b.sum += v;
  }
}

uint32_t mark_bins(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, uint64_t* bitmap, uint32_t limit) {
  uint32_t marked = 0;
  for (size_t i = 0; i < n && marked <= limit; ++i) marked += mark_bin(bitmap, bin_of(load_f32(x + 4 * i), min, bin_scale, bins));
  return marked;
}

void palette_indices(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, const uint16_t* guess,
                     const float* thresholds, uint32_t levels, uint16_t* out) {
  for (size_t i = 0; i < n; ++i) {
    const float v = load_f32(x + 4 * i);
    out[i] = settle(v, guess[bin_of(v, min, bin_scale, bins)], thresholds, levels);
  }
}

void seed_levels(const uint8_t* x, size_t n, const SeedLevels& p, int32_t* out) {
  for (size_t i = 0; i < n; ++i) out[i] = seed_level(load_f32(x + 4 * i), p);
}

}  // namespace scalar

#if ONNX_SHRINK_SIMD
namespace simd {

namespace {
// Bins of 4 values: the same float operations and clamping as bin_of.
inline v4::i32 bins4(v4::f32 v, v4::f32 min, v4::f32 scale, v4::f32 last) {
  return v4::trunc_to_int(v4::clamp_bins(v4::mul(v4::sub(v, min), scale), last));
}
}  // namespace

void histogram(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, Bin* out) {
  const v4::f32 vmin = v4::splat(min), vscale = v4::splat(bin_scale);
  const v4::f32 last = v4::splat(static_cast<float>(bins - 1));
  size_t i = 0;
  alignas(16) int32_t b[4];
  for (; i + 4 <= n; i += 4) {
    const v4::f32 v = v4::load(x + 4 * i);
    v4::store_i32(b, bins4(v, vmin, vscale, last));
    // The scatter stays in element order so that the per-bin sums are the scalar ones exactly.
    for (int k = 0; k < 4; ++k) {
      Bin& bin = out[b[k]];
      bin.count += 1;
      bin.sum += load_f32(x + 4 * (i + k));
    }
  }
  scalar::histogram(x + 4 * i, n - i, min, bin_scale, bins, out);
}

void palette_indices(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, const uint16_t* guess,
                     const float* thresholds, uint32_t levels, uint16_t* out) {
  const v4::f32 vmin = v4::splat(min), vscale = v4::splat(bin_scale);
  const v4::f32 last = v4::splat(static_cast<float>(bins - 1));
  size_t i = 0;
  alignas(16) int32_t b[4];
  for (; i + 4 <= n; i += 4) {
    const v4::f32 v = v4::load(x + 4 * i);
    v4::store_i32(b, bins4(v, vmin, vscale, last));
    for (int k = 0; k < 4; ++k) out[i + k] = settle(load_f32(x + 4 * (i + k)), guess[b[k]], thresholds, levels);
  }
  scalar::palette_indices(x + 4 * i, n - i, min, bin_scale, bins, guess, thresholds, levels, out + i);
}

void seed_levels(const uint8_t* x, size_t n, const SeedLevels& p, int32_t* out) {
  // In integer lanes the rounding and the sums are exact while every intermediate stays below 2^22;
  // the scalar code handles anything else (values far from zero relative to their range).
  if (!(std::fabs(p.zero) < 1048576.0f && p.steps < 65536.0f)) return scalar::seed_levels(x, n, p, out);
  const bool whole = p.half == std::floor(p.half);  // even levels: zero and half are integers
  if (!whole) return scalar::seed_levels(x, n, p, out);
  const v4::f32 inv = v4::splat(p.inverse), steps = v4::splat(p.steps);
  const v4::i32 zero = v4::isplat(static_cast<int32_t>(p.zero));
  const v4::i32 lo = v4::isplat(static_cast<int32_t>(-p.half)), hi = v4::isplat(static_cast<int32_t>(p.half - 1));
  const v4::i32 lowest = v4::isplat(-p.lowest);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v4::f32 t = v4::mul(v4::mul(v4::load(x + 4 * i), inv), steps);
    const v4::f32 bound = v4::splat(2097152.0f);  // beyond, the float round-trip is not an int lane's
    if (v4::any(v4::gt_i32(v4::as_i32(v4::max(v4::sub(v4::splat(0), t), t)), v4::as_i32(bound)))) {
      scalar::seed_levels(x + 4 * i, 4, p, out + i);
      continue;
    }
    const v4::i32 q = v4::imin(v4::imax(v4::iadd(v4::round_to_int(t), zero), lo), hi);
    v4::store_i32(out + i, v4::iadd(q, lowest));
  }
  scalar::seed_levels(x + 4 * i, n - i, p, out + i);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
