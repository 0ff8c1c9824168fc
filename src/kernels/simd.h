// The few 4-lane operations the kernels need, on SSE2 (native x86-64) and WebAssembly SIMD128.
//
// Every operation is defined to give bit-identical results on both, so that a model shrunk in the
// browser is byte-for-byte the one the native driver writes:
//   - min/max return the first operand unless the second is strictly smaller/greater (no NaN ever
//     reaches them: tensors with NaN or infinity are detected first and left alone);
//   - float -> int rounds to nearest, ties to even (SSE's default MXCSR mode; wasm `nearest`);
//   - narrowing to int8 saturates.
// Build with ONNX_SHRINK_NO_SIMD to get the scalar code only (the reference the tests compare to).
#pragma once

#include <cstdint>
#include <cstring>

#if !defined(ONNX_SHRINK_NO_SIMD) && defined(__wasm_simd128__)
#define ONNX_SHRINK_SIMD 1
#define ONNX_SHRINK_SIMD_WASM 1
#include <wasm_simd128.h>
#elif !defined(ONNX_SHRINK_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#define ONNX_SHRINK_SIMD 1
#define ONNX_SHRINK_SIMD_SSE 1
#include <emmintrin.h>
#else
#define ONNX_SHRINK_SIMD 0
#endif

// The helpers below are one instruction or a few: they must be inlined even in code built for size
// (-Os/-Oz, as the wasm module is), or each becomes a call per four floats.
#if defined(__GNUC__) || defined(__clang__)
#define ONNX_SHRINK_ALWAYS_INLINE inline __attribute__((always_inline))
#define ONNX_SHRINK_ALWAYS_LAMBDA __attribute__((always_inline))
#else
#define ONNX_SHRINK_ALWAYS_LAMBDA
#define ONNX_SHRINK_ALWAYS_INLINE inline
#endif

namespace onnx_shrink::kernels {

// Unaligned little-endian loads and stores for the scalar code (tensor bytes in a protobuf have
// any alignment).
ONNX_SHRINK_ALWAYS_INLINE float load_f32(const uint8_t* p) {
  float v;
  std::memcpy(&v, p, 4);
  return v;
}
ONNX_SHRINK_ALWAYS_INLINE void store_f32(uint8_t* p, float v) { std::memcpy(p, &v, 4); }
ONNX_SHRINK_ALWAYS_INLINE uint32_t f32_bits(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return u;
}
ONNX_SHRINK_ALWAYS_INLINE float bits_f32(uint32_t u) {
  float v;
  std::memcpy(&v, &u, 4);
  return v;
}
// The scalar twins of the SIMD min/max (see above).
ONNX_SHRINK_ALWAYS_INLINE float min_f32(float a, float b) { return b < a ? b : a; }
ONNX_SHRINK_ALWAYS_INLINE float max_f32(float a, float b) { return a < b ? b : a; }
ONNX_SHRINK_ALWAYS_INLINE bool finite_f32(float v) { return (f32_bits(v) & 0x7f800000u) != 0x7f800000u; }

}  // namespace onnx_shrink::kernels

#if ONNX_SHRINK_SIMD
namespace onnx_shrink::kernels::v4 {

#if ONNX_SHRINK_SIMD_WASM
using f32 = v128_t;
using i32 = v128_t;
ONNX_SHRINK_ALWAYS_INLINE f32 load(const uint8_t* p) { return wasm_v128_load(p); }
ONNX_SHRINK_ALWAYS_INLINE void store(uint8_t* p, f32 v) { wasm_v128_store(p, v); }
ONNX_SHRINK_ALWAYS_INLINE f32 splat(float v) { return wasm_f32x4_splat(v); }
ONNX_SHRINK_ALWAYS_INLINE f32 add(f32 a, f32 b) { return wasm_f32x4_add(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 sub(f32 a, f32 b) { return wasm_f32x4_sub(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 mul(f32 a, f32 b) { return wasm_f32x4_mul(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 min(f32 a, f32 b) { return wasm_f32x4_pmin(a, b); }  // b < a ? b : a
ONNX_SHRINK_ALWAYS_INLINE f32 max(f32 a, f32 b) { return wasm_f32x4_pmax(a, b); }  // a < b ? b : a
ONNX_SHRINK_ALWAYS_INLINE i32 round_to_int(f32 v) { return wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(v)); }
ONNX_SHRINK_ALWAYS_INLINE i32 trunc_to_int(f32 v) { return wasm_i32x4_trunc_sat_f32x4(v); }
ONNX_SHRINK_ALWAYS_INLINE f32 to_float(i32 v) { return wasm_f32x4_convert_i32x4(v); }
ONNX_SHRINK_ALWAYS_INLINE i32 iadd(i32 a, i32 b) { return wasm_i32x4_add(a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 isplat(int32_t v) { return wasm_i32x4_splat(v); }
ONNX_SHRINK_ALWAYS_INLINE i32 imin(i32 a, i32 b) { return wasm_i32x4_min(a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 imax(i32 a, i32 b) { return wasm_i32x4_max(a, b); }
// Lanes whose exponent bits are all ones (NaN or infinity), as all-ones masks.
ONNX_SHRINK_ALWAYS_INLINE i32 nonfinite_mask(f32 v) {
  const v128_t e = wasm_i32x4_splat(0x7f800000);
  return wasm_i32x4_eq(wasm_v128_and(v, e), e);
}
ONNX_SHRINK_ALWAYS_INLINE i32 bor(i32 a, i32 b) { return wasm_v128_or(a, b); }
ONNX_SHRINK_ALWAYS_INLINE bool any(i32 mask) { return wasm_v128_any_true(mask); }
// Saturating narrowing of 16 int32 lanes to 16 int8 lanes, stored at p.
ONNX_SHRINK_ALWAYS_INLINE void store_i8x16(uint8_t* p, i32 a, i32 b, i32 c, i32 d) {
  wasm_v128_store(p, wasm_i8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(a, b), wasm_i16x8_narrow_i32x4(c, d)));
}
// The same for 8 lanes (8 bytes stored).
ONNX_SHRINK_ALWAYS_INLINE void store_i8x8(uint8_t* p, i32 a, i32 b) {
  const v128_t h = wasm_i16x8_narrow_i32x4(a, b);
  wasm_v128_store64_lane(p, wasm_i8x16_narrow_i16x8(h, h), 0);
}
ONNX_SHRINK_ALWAYS_INLINE void store_u8x8(uint8_t* p, i32 a, i32 b) {
  const v128_t h = wasm_i16x8_narrow_i32x4(a, b);
  wasm_v128_store64_lane(p, wasm_u8x16_narrow_i16x8(h, h), 0);
}
// And for 4 lanes (4 bytes stored).
ONNX_SHRINK_ALWAYS_INLINE void store_i8x4(uint8_t* p, i32 a) {
  const v128_t h = wasm_i16x8_narrow_i32x4(a, a);
  wasm_v128_store32_lane(p, wasm_i8x16_narrow_i16x8(h, h), 0);
}
ONNX_SHRINK_ALWAYS_INLINE void store_u8x4(uint8_t* p, i32 a) {
  const v128_t h = wasm_i16x8_narrow_i32x4(a, a);
  wasm_v128_store32_lane(p, wasm_u8x16_narrow_i16x8(h, h), 0);
}
// Widening of 4 int8 lanes at p to int32 (the inverse of the above, for the error).
ONNX_SHRINK_ALWAYS_INLINE i32 load_i8x4(const uint8_t* p) {
  int32_t w;
  std::memcpy(&w, p, 4);
  return wasm_i32x4_extend_low_i16x8(wasm_i16x8_extend_low_i8x16(wasm_i32x4_splat(w)));
}
// Byte lanes of 0...255 (low bits of codes, up to 8 of them): stored and widened unsigned, as a
// signed narrowing would clamp 128...255 to 127.
ONNX_SHRINK_ALWAYS_INLINE void store_u8x16(uint8_t* p, i32 a, i32 b, i32 c, i32 d) {
  wasm_v128_store(p, wasm_u8x16_narrow_i16x8(wasm_i16x8_narrow_i32x4(a, b), wasm_i16x8_narrow_i32x4(c, d)));
}
ONNX_SHRINK_ALWAYS_INLINE i32 load_u8x4(const uint8_t* p) {
  int32_t w;
  std::memcpy(&w, p, 4);
  return wasm_u32x4_extend_low_u16x8(wasm_u16x8_extend_low_u8x16(wasm_i32x4_splat(w)));
}
// Lanes of small integers (|v| < 2^22) as floats, exactly. Converting them is what it means, but
// LLVM 14 folds the widening of byte loads into the conversion and then splits it into four
// scalar conversions; adding the integers to the bits of 1.5 * 2^23 and subtracting that float
// gives the same values in two instructions (they only move the low mantissa bits).
ONNX_SHRINK_ALWAYS_INLINE f32 small_to_float(i32 v) {
  const v128_t magic = wasm_f32x4_splat(12582912.0f);
  return wasm_f32x4_sub(wasm_i32x4_add(v, magic), magic);
}
// 4 int8 codes / 4 bytes of low bits at p as floats (exact).
ONNX_SHRINK_ALWAYS_INLINE f32 load_i8x4_as_float(const uint8_t* p) { return small_to_float(load_i8x4(p)); }
ONNX_SHRINK_ALWAYS_INLINE f32 load_u8x4_as_float(const uint8_t* p) { return small_to_float(load_u8x4(p)); }
// 4 uint16 at p, widened to uint32 lanes.
ONNX_SHRINK_ALWAYS_INLINE i32 load_u16x4(const uint8_t* p) { return wasm_u32x4_load16x4(p); }
ONNX_SHRINK_ALWAYS_INLINE i32 shl(i32 v, int n) { return wasm_i32x4_shl(v, n); }
ONNX_SHRINK_ALWAYS_INLINE i32 shr_u(i32 v, int n) { return wasm_u32x4_shr(v, n); }
ONNX_SHRINK_ALWAYS_INLINE i32 shr_s(i32 v, int n) { return wasm_i32x4_shr(v, n); }
ONNX_SHRINK_ALWAYS_INLINE i32 band(i32 a, i32 b) { return wasm_v128_and(a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 gt_i32(i32 a, i32 b) { return wasm_i32x4_gt(a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 select(i32 mask, i32 a, i32 b) { return wasm_v128_bitselect(a, b, mask); }  // mask ? a : b
ONNX_SHRINK_ALWAYS_INLINE f32 as_f32(i32 v) { return v; }
ONNX_SHRINK_ALWAYS_INLINE i32 as_i32(f32 v) { return v; }
ONNX_SHRINK_ALWAYS_INLINE float lane(f32 v, int i) {
  float out[4];
  wasm_v128_store(out, v);
  return out[i];
}
ONNX_SHRINK_ALWAYS_INLINE void store_i32(int32_t* p, i32 v) { wasm_v128_store(p, v); }
ONNX_SHRINK_ALWAYS_INLINE i32 load_i32(const int32_t* p) { return wasm_v128_load(p); }
// Lanes equal to zero (either sign), as all-ones masks.
ONNX_SHRINK_ALWAYS_INLINE i32 zero_mask(f32 v) { return wasm_f32x4_eq(v, wasm_f32x4_splat(0)); }
// max(v, 0) then min(v, hi), with NaN becoming 0: the same on every target and in the scalar twin.
ONNX_SHRINK_ALWAYS_INLINE f32 clamp_bins(f32 v, f32 hi) { return wasm_f32x4_pmin(hi, wasm_f32x4_pmax(wasm_f32x4_splat(0), v)); }
#else  // SSE2
using f32 = __m128;
using i32 = __m128i;
ONNX_SHRINK_ALWAYS_INLINE f32 load(const uint8_t* p) { return _mm_loadu_ps(reinterpret_cast<const float*>(p)); }
ONNX_SHRINK_ALWAYS_INLINE void store(uint8_t* p, f32 v) { _mm_storeu_ps(reinterpret_cast<float*>(p), v); }
ONNX_SHRINK_ALWAYS_INLINE f32 splat(float v) { return _mm_set1_ps(v); }
ONNX_SHRINK_ALWAYS_INLINE f32 add(f32 a, f32 b) { return _mm_add_ps(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 sub(f32 a, f32 b) { return _mm_sub_ps(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 mul(f32 a, f32 b) { return _mm_mul_ps(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 min(f32 a, f32 b) { return _mm_min_ps(b, a); }  // minps(x, y) = x < y ? x : y
ONNX_SHRINK_ALWAYS_INLINE f32 max(f32 a, f32 b) { return _mm_max_ps(b, a); }  // maxps(x, y) = x > y ? x : y
ONNX_SHRINK_ALWAYS_INLINE i32 round_to_int(f32 v) { return _mm_cvtps_epi32(v); }
ONNX_SHRINK_ALWAYS_INLINE i32 trunc_to_int(f32 v) { return _mm_cvttps_epi32(v); }
ONNX_SHRINK_ALWAYS_INLINE f32 to_float(i32 v) { return _mm_cvtepi32_ps(v); }
ONNX_SHRINK_ALWAYS_INLINE i32 iadd(i32 a, i32 b) { return _mm_add_epi32(a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 isplat(int32_t v) { return _mm_set1_epi32(v); }
ONNX_SHRINK_ALWAYS_INLINE i32 select(i32 mask, i32 a, i32 b) { return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b)); }
ONNX_SHRINK_ALWAYS_INLINE i32 gt_i32(i32 a, i32 b) { return _mm_cmpgt_epi32(a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 imin(i32 a, i32 b) { return select(_mm_cmpgt_epi32(a, b), b, a); }
ONNX_SHRINK_ALWAYS_INLINE i32 imax(i32 a, i32 b) { return select(_mm_cmpgt_epi32(a, b), a, b); }
ONNX_SHRINK_ALWAYS_INLINE i32 nonfinite_mask(f32 v) {
  const __m128i e = _mm_set1_epi32(0x7f800000);
  return _mm_cmpeq_epi32(_mm_and_si128(_mm_castps_si128(v), e), e);
}
ONNX_SHRINK_ALWAYS_INLINE i32 bor(i32 a, i32 b) { return _mm_or_si128(a, b); }
ONNX_SHRINK_ALWAYS_INLINE bool any(i32 mask) { return _mm_movemask_epi8(mask) != 0; }
ONNX_SHRINK_ALWAYS_INLINE void store_i8x16(uint8_t* p, i32 a, i32 b, i32 c, i32 d) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
}
ONNX_SHRINK_ALWAYS_INLINE void store_i8x8(uint8_t* p, i32 a, i32 b) {
  const __m128i h = _mm_packs_epi32(a, b);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packs_epi16(h, h));
}
ONNX_SHRINK_ALWAYS_INLINE void store_u8x8(uint8_t* p, i32 a, i32 b) {
  const __m128i h = _mm_packs_epi32(a, b);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(h, h));
}
ONNX_SHRINK_ALWAYS_INLINE void store_i8x4(uint8_t* p, i32 a) {
  const __m128i h = _mm_packs_epi32(a, a);
  const int32_t w = _mm_cvtsi128_si32(_mm_packs_epi16(h, h));
  std::memcpy(p, &w, 4);
}
ONNX_SHRINK_ALWAYS_INLINE void store_u8x4(uint8_t* p, i32 a) {
  const __m128i h = _mm_packs_epi32(a, a);
  const int32_t w = _mm_cvtsi128_si32(_mm_packus_epi16(h, h));
  std::memcpy(p, &w, 4);
}
ONNX_SHRINK_ALWAYS_INLINE i32 load_i8x4(const uint8_t* p) {
  int32_t w;
  std::memcpy(&w, p, 4);
  const __m128i v = _mm_cvtsi32_si128(w);
  const __m128i v16 = _mm_unpacklo_epi8(v, v);          // each byte doubled
  return _mm_srai_epi32(_mm_unpacklo_epi16(v16, v16), 24);  // sign-extended
}
ONNX_SHRINK_ALWAYS_INLINE f32 load_i8x4_as_float(const uint8_t* p) { return _mm_cvtepi32_ps(load_i8x4(p)); }
ONNX_SHRINK_ALWAYS_INLINE void store_u8x16(uint8_t* p, i32 a, i32 b, i32 c, i32 d) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
}
ONNX_SHRINK_ALWAYS_INLINE i32 load_u8x4(const uint8_t* p) {
  int32_t w;
  std::memcpy(&w, p, 4);
  const __m128i zero = _mm_setzero_si128();
  return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(w), zero), zero);
}
ONNX_SHRINK_ALWAYS_INLINE f32 load_u8x4_as_float(const uint8_t* p) { return _mm_cvtepi32_ps(load_u8x4(p)); }
ONNX_SHRINK_ALWAYS_INLINE i32 load_u16x4(const uint8_t* p) {
  return _mm_unpacklo_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)), _mm_setzero_si128());
}
ONNX_SHRINK_ALWAYS_INLINE i32 shl(i32 v, int n) { return _mm_slli_epi32(v, n); }
ONNX_SHRINK_ALWAYS_INLINE i32 shr_u(i32 v, int n) { return _mm_srli_epi32(v, n); }
ONNX_SHRINK_ALWAYS_INLINE i32 shr_s(i32 v, int n) { return _mm_sra_epi32(v, _mm_cvtsi32_si128(n)); }
ONNX_SHRINK_ALWAYS_INLINE i32 band(i32 a, i32 b) { return _mm_and_si128(a, b); }
ONNX_SHRINK_ALWAYS_INLINE f32 as_f32(i32 v) { return _mm_castsi128_ps(v); }
ONNX_SHRINK_ALWAYS_INLINE i32 as_i32(f32 v) { return _mm_castps_si128(v); }
ONNX_SHRINK_ALWAYS_INLINE float lane(f32 v, int i) {
  float out[4];
  _mm_storeu_ps(out, v);
  return out[i];
}
ONNX_SHRINK_ALWAYS_INLINE void store_i32(int32_t* p, i32 v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
ONNX_SHRINK_ALWAYS_INLINE i32 load_i32(const int32_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
ONNX_SHRINK_ALWAYS_INLINE i32 zero_mask(f32 v) { return _mm_castps_si128(_mm_cmpeq_ps(v, _mm_setzero_ps())); }
ONNX_SHRINK_ALWAYS_INLINE f32 clamp_bins(f32 v, f32 hi) { return _mm_min_ps(_mm_max_ps(v, _mm_setzero_ps()), hi); }
#endif

}  // namespace onnx_shrink::kernels::v4
#endif
