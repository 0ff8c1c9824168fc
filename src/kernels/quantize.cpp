// 8-bit quantization: parameters and codes, per group, per column, and the original Shrink Ray's
// per-tensor formula (for parity).
#include <cfloat>
#include <cmath>
#include <vector>

#include "kernels.h"
#include "slices.h"

namespace onnx_shrink::kernels {

Int8Params int8_params(float min, float max, int32_t bits, uint32_t code_bits) {
  // Widen the range to include 0 so that 0 has an exact code (zero padding and pruned weights
  // stay exactly 0 after the round trip).
  const float lo = min < 0 ? min : 0.0f;
  const float hi = max > 0 ? max : 0.0f;
  Int8Params p;
  p.bits = bits;
  p.half = 1 << (code_bits - 1);
  if (!(hi > lo)) return p;  // all zeros: codes 0, scale 1
  const float first = static_cast<float>(p.first()), last = static_cast<float>(p.last());
  p.scale = (hi - lo) / (last - first);
  if (!(p.scale >= FLT_MIN)) p.scale = FLT_MIN;  // a range so tiny its step underflows
  p.inv_scale = 1.0f / p.scale;
  const float zero = std::nearbyint(first - lo * p.inv_scale);
  p.zero = static_cast<int32_t>(zero < first ? first : zero > last ? last : zero);
  p.offset = -(static_cast<float>(p.zero) * p.scale);
  return p;
}

SeedParams seed_params(float min, float max) {
  // shrink.py: range = max - min (float32); inverse_range = 1.0 / range (float64 in numpy 1.x);
  // zero_point = round(-min * inverse_range * 255.0) - 128 (float64, ties to even);
  // codes = clip(round(x * inverse_range * 255.0) + zero_point) computed on the float32 array, so
  // the float64 scalars are first cast to float32; scale = range / 255.0 stored as float32.
  SeedParams p;
  const float range = max - min;
  if (!(range > 0)) {  // a constant tensor: the seed divides by zero; store the value as offset
    p.inv_range32 = 0;
    p.zero = 0;
    p.scale = 1;
    p.offset = min;
    return p;
  }
  const double inverse = 1.0 / static_cast<double>(range);
  const double zero = std::nearbyint(static_cast<double>(-min) * inverse * 255.0) - 128.0;
  p.inv_range32 = static_cast<float>(inverse);
  p.zero = static_cast<float>(zero);
  p.scale = static_cast<float>(static_cast<double>(range) / 255.0);
  p.offset = -(p.zero * p.scale);
  return p;
}

namespace scalar {

void quantize(const uint8_t* x, size_t n, const Int8Params& p, int8_t* out, ErrorSums& e, uint8_t* low) {
  const int32_t first = p.first(), last = p.last(), mask = (1 << p.bits) - 1;
  double signal = 0, noise = 0;
  for (size_t i = 0; i < n; ++i) {
    const float v = load_f32(x + 4 * i);
    const int32_t q = code_of(v, p.inv_scale, p.zero, first, last);
    out[i] = static_cast<int8_t>(q >> p.bits);  // arithmetic shift: the floor, for negative codes too
    if (p.bits) low[i] = static_cast<uint8_t>(q & mask);
    const float d = v - (static_cast<float>(q) * p.scale + p.offset);
    signal += double(v) * v;
    noise += double(d) * d;
  }
  e.signal += signal;
  e.noise += noise;
}

void quantize_columns(const uint8_t* x, size_t rows, size_t cols, const Int8Params* params, int8_t* out,
                      ErrorSums& e, const float* row_weights, uint8_t* low) {
  for (size_t r = 0; r < rows; ++r) {
    ErrorSums row;
    for (size_t c = 0; c < cols; ++c) {
      const size_t k = r * cols + c;
      quantize(x + 4 * k, 1, params[c], out + k, row, low ? low + k : nullptr);
    }
    const double w = row_weights ? row_weights[r] : 1.0;
    e.signal += w * row.signal;
    e.noise += w * row.noise;
  }
}

void quantize_seed(const uint8_t* x, size_t n, const SeedParams& p, int8_t* out, ErrorSums& e) {
  double signal = 0, noise = 0;
  for (size_t i = 0; i < n; ++i) {
    const float v = load_f32(x + 4 * i);
    const float t = (v * p.inv_range32) * 255.0f;
    // numpy adds the zero point and clips in float32; only then does it convert.
    float r = std::nearbyint(t) + p.zero;
    r = r < -128.0f ? -128.0f : r > 127.0f ? 127.0f : r;
    const int32_t q = static_cast<int32_t>(r);
    out[i] = static_cast<int8_t>(q);
    const float d = v - (static_cast<float>(q) * p.scale + p.offset);
    signal += double(v) * v;
    noise += double(d) * d;
  }
  e.signal += signal;
  e.noise += noise;
}

}  // namespace scalar

#if ONNX_SHRINK_SIMD
namespace simd {

namespace {

// Accumulates squares in float lanes and moves them to double every few thousand values, so that
// precision does not degrade on large tensors.
struct LaneSums {
  v4::f32 signal = v4::splat(0), noise = v4::splat(0);
  int pending = 0;
  ONNX_SHRINK_ALWAYS_INLINE void add(v4::f32 x, v4::f32 d) {
    signal = v4::add(signal, v4::mul(x, x));
    noise = v4::add(noise, v4::mul(d, d));
    if (++pending == 1024) flush_into(nullptr);
  }
  ErrorSums totals;
  void flush_into(ErrorSums* out) {
    for (int k = 0; k < 4; ++k) {
      totals.signal += v4::lane(signal, k);
      totals.noise += v4::lane(noise, k);
    }
    signal = v4::splat(0);
    noise = v4::splat(0);
    pending = 0;
    if (out) out->add(totals), totals = ErrorSums{};
  }
};

// The code range of a group's parameters (its code bits and low bits), as lanes.
struct CodeRange {
  v4::i32 first, last, mask;
  int32_t bits;
  explicit CodeRange(const Int8Params& p)
      : first(v4::isplat(p.first())), last(v4::isplat(p.last())), mask(v4::isplat((1 << p.bits) - 1)), bits(p.bits) {}
};

// Codes (clamped) and error of 4 values.
ONNX_SHRINK_ALWAYS_INLINE v4::i32 code4(v4::f32 v, v4::f32 inv, v4::i32 zero, v4::f32 scale, v4::f32 offset,
                                        const CodeRange& range, LaneSums& sums) {
  const v4::i32 q = codes_of(v, inv, zero, range.first, range.last);
  sums.add(v, v4::sub(v, v4::add(v4::mul(v4::to_float(q), scale), offset)));
  return q;
}

// Stores 16 codes: their low bits (when there are any) and their top 8 bits.
ONNX_SHRINK_ALWAYS_INLINE void store16(v4::i32 a, v4::i32 b, v4::i32 c, v4::i32 d, const CodeRange& range, int8_t* out,
                                       uint8_t* low) {
  if (range.bits) {
    v4::store_u8x16(low, v4::band(a, range.mask), v4::band(b, range.mask), v4::band(c, range.mask), v4::band(d, range.mask));
    a = v4::shr_s(a, range.bits), b = v4::shr_s(b, range.bits), c = v4::shr_s(c, range.bits), d = v4::shr_s(d, range.bits);
  }
  v4::store_i8x16(reinterpret_cast<uint8_t*>(out), a, b, c, d);
}

}  // namespace

void quantize(const uint8_t* x, size_t n, const Int8Params& p, int8_t* out, ErrorSums& e, uint8_t* low) {
  const v4::f32 inv = v4::splat(p.inv_scale), scale = v4::splat(p.scale), offset = v4::splat(p.offset);
  const v4::i32 zero = v4::isplat(p.zero);
  const CodeRange range(p);
  LaneSums sums;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v4::i32 a = code4(v4::load(x + 4 * i), inv, zero, scale, offset, range, sums);
    const v4::i32 b = code4(v4::load(x + 4 * i + 16), inv, zero, scale, offset, range, sums);
    const v4::i32 c = code4(v4::load(x + 4 * i + 32), inv, zero, scale, offset, range, sums);
    const v4::i32 d = code4(v4::load(x + 4 * i + 48), inv, zero, scale, offset, range, sums);
    store16(a, b, c, d, range, out + i, low ? low + i : nullptr);
  }
  sums.flush_into(&e);
  scalar::quantize(x + 4 * i, n - i, p, out + i, e, low ? low + i : nullptr);
}

inline void quantize_columns_whole(const uint8_t* x, size_t rows, size_t cols, const Int8Params* params, int8_t* out,
                                   ErrorSums& e, const float* row_weights, uint8_t* low) {
  if (cols < 16) return scalar::quantize_columns(x, rows, cols, params, out, e, row_weights, low);
  const CodeRange range(params[0]);
  // Parameters as arrays of lanes, then row by row (contiguous), 16 columns at a time.
  const size_t wide = cols & ~size_t(15);
  std::vector<float> inv(wide), scale(wide), offset(wide);
  std::vector<int32_t> zero(wide);
  for (size_t c = 0; c < wide; ++c) {
    inv[c] = params[c].inv_scale;
    scale[c] = params[c].scale;
    offset[c] = params[c].offset;
    zero[c] = params[c].zero;
  }
  auto lanes = [](const auto& v, size_t c) { return v4::load(reinterpret_cast<const uint8_t*>(v.data() + c)); };
  for (size_t r = 0; r < rows; ++r) {
    LaneSums sums;
    const uint8_t* row = x + 4 * r * cols;
    int8_t* o = out + r * cols;
    uint8_t* lo = low ? low + r * cols : nullptr;
    for (size_t c = 0; c < wide; c += 16) {
      v4::i32 q[4];
      for (int k = 0; k < 4; ++k) {
        const size_t cc = c + 4 * k;
        q[k] = code4(v4::load(row + 4 * cc), lanes(inv, cc), v4::as_i32(lanes(zero, cc)), lanes(scale, cc), lanes(offset, cc),
                     range, sums);
      }
      store16(q[0], q[1], q[2], q[3], range, o + c, lo ? lo + c : nullptr);
    }
    ErrorSums row_sums;
    sums.flush_into(&row_sums);
    if (wide < cols) {
      scalar::quantize_columns(row + 4 * wide, 1, cols - wide, params + wide, o + wide, row_sums, nullptr, lo ? lo + wide : nullptr);
    }
    const double w = row_weights ? row_weights[r] : 1.0;
    e.signal += w * row_sums.signal;
    e.noise += w * row_sums.noise;
  }
}

void quantize_columns(const uint8_t* x, size_t rows, size_t cols, const Int8Params* params, int8_t* out,
                      ErrorSums& e, const float* row_weights, uint8_t* low) {
  for_slices(rows, rows_per_slice(cols), [&](size_t b, size_t end) {
    quantize_columns_whole(x + 4 * b * cols, end - b, cols, params, out + b * cols, e,
                           row_weights ? row_weights + b : nullptr, low ? low + b * cols : nullptr);
  });
}

void quantize_seed(const uint8_t* x, size_t n, const SeedParams& p, int8_t* out, ErrorSums& e) {
  // With a zero point this small every intermediate is an integer below 2^24, so integer lanes give
  // exactly numpy's float32 results. Larger ones (values far from zero) take the scalar path.
  if (!(std::fabs(p.zero) <= 1048576.0f)) return scalar::quantize_seed(x, n, p, out, e);
  const v4::f32 inv = v4::splat(p.inv_range32), k255 = v4::splat(255.0f);
  const v4::f32 scale = v4::splat(p.scale), offset = v4::splat(p.offset);
  const v4::i32 zero = v4::isplat(static_cast<int32_t>(p.zero));
  const v4::i32 lo = v4::isplat(-128), hi = v4::isplat(127);
  LaneSums sums;
  auto code = [&](v4::f32 v) ONNX_SHRINK_ALWAYS_LAMBDA {
    const v4::i32 q = v4::imin(v4::imax(v4::iadd(v4::round_to_int(v4::mul(v4::mul(v, inv), k255)), zero), lo), hi);
    sums.add(v, v4::sub(v, v4::add(v4::mul(v4::to_float(q), scale), offset)));
    return q;
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const v4::i32 a = code(v4::load(x + 4 * i)), b = code(v4::load(x + 4 * i + 16));
    const v4::i32 c = code(v4::load(x + 4 * i + 32)), d = code(v4::load(x + 4 * i + 48));
    v4::store_i8x16(reinterpret_cast<uint8_t*>(out + i), a, b, c, d);
  }
  sums.flush_into(&e);
  scalar::quantize_seed(x + 4 * i, n - i, p, out + i, e);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
