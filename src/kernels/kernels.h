// Numeric kernels. Each exists twice with the same signature: `scalar::` (the reference) and
// `simd::` (SSE2 natively, SIMD128 in WebAssembly), and the unqualified name is the fastest one
// built. Inputs are little-endian fp32 bytes of any alignment, straight from the model.
//
// Results that end up in the output file (codes, palette indices) are bit-identical between the
// scalar and SIMD versions; the error sums (for reports) may differ in the last bits, because
// they are added in a different order. The SIMD kernels that run over whole tensors at once
// (min/max, coding and scaling of columns) go in slices, for WebAssembly's tiers (slices.h).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include <algorithm>

#include "simd.h"

namespace onnx_shrink::kernels {

// One bin of a histogram: how many values fell in it and their sum, side by side (the scatter then
// touches one cache line a value, not two: the conv stack's palette 0.89-0.95x the time natively).
struct Bin {
  uint64_t count = 0;
  double sum = 0;
  bool operator==(const Bin& o) const { return count == o.count && sum == o.sum; }
};

// Sums of squares of values and of their reconstruction errors, for SQNR.
struct ErrorSums {
  double signal = 0;  // sum x^2
  double noise = 0;   // sum (x - x')^2
  void add(const ErrorSums& o) {
    signal += o.signal;
    noise += o.noise;
  }
};

// Asymmetric parameters of one group of values, 8 + `bits` bits per value: q = clamp(round(x *
// inv_scale) + zero, -128 * 2^bits, 128 * 2^bits - 1); x' = q * scale + offset, with offset =
// -(zero * scale) so that x = 0 comes back exactly. With bits > 0 a code is stored as its top 8 bits
// (q >> bits, int8) and its low bits (q & (2^bits - 1), "low", one byte per value until packed):
// the graph computes (high + low / 2^bits) * (scale * 2^bits) + offset, the same fp32 value.
struct Int8Params {
  float scale = 1, inv_scale = 1, offset = 0;
  int32_t zero = 0;
  int32_t bits = 0;    // low bits below each 8-bit code
  int32_t half = 128;  // 2^(code bits - 1): the codes (with their low bits) lie in [-half, half) * 2^bits
  int32_t first() const { return -half * (1 << bits); }
  int32_t last() const { return half * (1 << bits) - 1; }
};
// From a group's min and max (the range is widened to include 0): codes of `code_bits` (2 ... 8)
// and, with 8, `bits` low bits below them.
Int8Params int8_params(float min, float max, int32_t bits = 0, uint32_t code_bits = 8);

// A value's whole code, clamp(round(v * inv_scale) + zero, first, last), rounding to nearest with
// ties to even as the SIMD lanes do: the one formula of every 8-bit coder (kernels::quantize and
// the offset correction's pass, bias_correction.cpp).
inline int32_t code_of(float v, float inv_scale, int32_t zero, int32_t first, int32_t last) {
  const int32_t q = static_cast<int32_t>(std::nearbyint(v * inv_scale)) + zero;
  return q < first ? first : q > last ? last : q;
}
#if ONNX_SHRINK_SIMD
// The same for four lanes.
ONNX_SHRINK_ALWAYS_INLINE v4::i32 codes_of(v4::f32 v, v4::f32 inv_scale, v4::i32 zero, v4::i32 first, v4::i32 last) {
  return v4::imin(v4::imax(v4::iadd(v4::round_to_int(v4::mul(v, inv_scale)), zero), first), last);
}
#endif

// The original Shrink Ray's palette ("float levels"): q = trunc(clip(round(x * inverse * steps) + zero,
// -half, half - 1)), in float32 as its numpy code computes it; the value is then (q - zero) * scale.
struct SeedLevels {
  float inverse = 0, steps = 0, zero = 0, half = 0;
  int32_t lowest = 0;  // the smallest q, so that q - lowest indexes a table of values
};

// One value's level, q - lowest: what seed_levels computes for every value.
inline int32_t seed_level(float v, const SeedLevels& p) {
  float q = std::nearbyint(v * p.inverse * p.steps) + p.zero;
  q = q < -p.half ? -p.half : q > p.half - 1 ? p.half - 1 : q;
  return static_cast<int32_t>(q) - p.lowest;
}

// The original Shrink Ray's per-tensor parameters, computed as its numpy code does.
struct SeedParams {
  float inv_range32 = 0;  // float32(1 / range): numpy casts the float64 scalar to the array's type
  float zero = 0;         // round(-min / range * 255) - 128
  float scale = 0;        // float32(range / 255.0)
  float offset = 0;       // -(zero * scale), for the Cast -> Mul -> Add form
};
SeedParams seed_params(float min, float max);

// A step of a dequantization chain over a run of values (expand()): v * a, or for the pairs of
// steps that chains have, v * a + b (Mul then Add) and (v - a) * b (Sub then Mul, DequantizeLinear).
enum class RunOp : uint8_t { Mul, MulAdd, SubMul };

#define ONNX_SHRINK_KERNELS                                                                                  \
  /* Running min/max of n values; `finite` becomes false if any is NaN or infinite. */                         \
  void minmax(const uint8_t* x, size_t n, float& min, float& max, bool& finite);                              \
  /* Per-column running min/max of a rows x cols matrix (mins/maxs have cols entries). */                      \
  void minmax_columns(const uint8_t* x, size_t rows, size_t cols, float* mins, float* maxs, bool& finite);     \
  /* Codes of n values sharing one group's parameters: the top 8 bits to `out`, the low bits to `low` */      \
  /* (when p.bits > 0). */                                                                                     \
  void quantize(const uint8_t* x, size_t n, const Int8Params& p, int8_t* out, ErrorSums& e,                   \
                uint8_t* low = nullptr);                                                                       \
  /* Codes of a rows x cols matrix with one group per column (params has cols entries, all with the same */   \
  /* bits); the error terms of row r are weighted by row_weights[r] when given. */                             \
  void quantize_columns(const uint8_t* x, size_t rows, size_t cols, const Int8Params* params, int8_t* out,     \
                        ErrorSums& e, const float* row_weights = nullptr, uint8_t* low = nullptr);             \
  /* The original Shrink Ray's palette level of each value, as q - lowest (see SeedLevels). */                  \
  void seed_levels(const uint8_t* x, size_t n, const SeedLevels& p, int32_t* out);                             \
  /* The original Shrink Ray's codes: clamp(round(x * inv_range32 * 255) + zero). */                           \
  void quantize_seed(const uint8_t* x, size_t n, const SeedParams& p, int8_t* out, ErrorSums& e);              \
  /* fp16 / bf16 bit patterns to fp32. */                                                                      \
  void halves_to_floats(const uint8_t* h, size_t n, uint8_t* out);                                                \
  void bfloats_to_floats(const uint8_t* h, size_t n, uint8_t* out);                                              \
  /* Histogram of n values over `bins` equal bins starting at `min`, bin = trunc((x - min) * bin_scale): */    \
  /* the count and sum of the values of each bin, added to `out` (bins entries) in order. */                   \
  void histogram(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, Bin* out);             \
  /* Palette index of each value: the j with thresholds[j-1] <= x < thresholds[j] (levels - 1 thresholds, */   \
  /* ascending); `guess` maps a bin (as in histogram) to a nearby j to start from. */                          \
  void palette_indices(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins,                  \
                       const uint16_t* guess, const float* thresholds, uint32_t levels, uint16_t* out);         \
  /* out = x * factor (n values); out may be x. */                                                             \
  void scale(const uint8_t* x, size_t n, float factor, uint8_t* out);                                          \
  /* out[r][c] = x[r][c] * factors[c] for a rows x cols matrix; out may be x. With row_min and row_max   */ \
  /* (rows entries each), also each row's least and largest out value (finite values: any order's).      */ \
  void scale_columns(const uint8_t* x, size_t rows, size_t cols, const float* factors, uint8_t* out,           \
                     float* row_min = nullptr, float* row_max = nullptr);                                      \
  /* Sums of x^2 and (x - y)^2 over n values. */                                                               \
  void error_sums(const uint8_t* x, const uint8_t* y, size_t n, ErrorSums& e);                                 \
  /* expand(): n one-byte codes (int8 or uint8) as floats. */                                                  \
  void bytes_to_floats(const uint8_t* q, size_t n, bool is_signed, float* out);                                \
  /* expand(): v[j] = v[j] op operands for a run of n values whose operands are a[j * stride] and */           \
  /* b[j * stride] (stride 0: one value each). */                                                              \
  void apply_run(float* v, size_t n, const float* a, const float* b, uint64_t stride, RunOp op);              \
  /* expand(): v[j] += the low bits of value first + j over 2^bits, packed 8 / bits to a byte from the */       \
  /* lowest bits up: ((packed[i / per] >> bits * (i % per)) & (2^bits - 1)) / 2^bits (bits 1, 2, 4, 8). */      \
  void add_low_bits(const uint8_t* packed, uint64_t first, size_t n, uint32_t bits, float* v);

namespace scalar {
ONNX_SHRINK_KERNELS
// Sets bit b of `bitmap` (bins bits) for the bin b of each value, binned as in histogram (the
// codebook test, on samples of the tensor); returns how many bits it set, stopping once that is
// more than `limit` (the test's answer is known then: most samples get there within a few
// thousand values, so a SIMD twin would not pay for its bytes in the wasm module).
uint32_t mark_bins(const uint8_t* x, size_t n, float min, float bin_scale, uint32_t bins, uint64_t* bitmap,
                   uint32_t limit = UINT32_MAX);
}
#if ONNX_SHRINK_SIMD
namespace simd {
ONNX_SHRINK_KERNELS
}
using namespace simd;
#else
using namespace scalar;
#endif
#undef ONNX_SHRINK_KERNELS

// The range of n values (0 to 0 for none), and whether every one is finite.
struct Range {
  float lo = 0, hi = 0;
  bool finite = true;
};
inline Range range_of(const uint8_t* x, size_t n) {
  Range r;
  if (n) r.lo = r.hi = load_f32(x), minmax(x, n, r.lo, r.hi, r.finite);
  return r;
}

// Scalar conversions used outside hot loops.
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);      // round to nearest even
float bfloat_to_float(uint16_t h);
uint16_t float_to_bfloat(float f);    // round to nearest even

}  // namespace onnx_shrink::kernels
