// fp16 and bf16 <-> fp32. The engine works on fp32 internally; fp16/bf16 weights are widened once
// per tensor and the results narrowed back with round-to-nearest-even.
#include <cstring>

#include "kernels.h"

namespace onnx_shrink::kernels {

float half_to_float(uint16_t h) {
  // Place the exponent and mantissa in fp32 position, then rescale by 2^112 (the bias difference):
  // exact for normal and subnormal halves. Infinity and NaN keep an all-ones exponent.
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t em = h & 0x7fff;
  if (em >= 0x7c00) return bits_f32(sign | 0x7f800000u | ((em & 0x3ff) << 13));
  return bits_f32(sign | f32_bits(bits_f32(em << 13) * bits_f32(0x77800000u)));
}

uint16_t float_to_half(float f) {
  uint32_t x = f32_bits(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return sign | (x > 0x7f800000u ? 0x7e00 : 0x7c00);  // NaN, infinity
  if (x >= 0x477ff000u) return sign | 0x7c00;                                // rounds past 65504
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 lines the value up so that the FPU rounds it to a
    // multiple of 2^-24 (the subnormal step), to nearest even.
    const float v = bits_f32(x) + 0.5f;
    return sign | static_cast<uint16_t>(f32_bits(v) - 0x3f000000u);
  }
  const uint32_t odd = (x >> 13) & 1;
  x += 0xc8000fffu + odd;  // rebias the exponent (-112) and round to nearest even
  return sign | static_cast<uint16_t>(x >> 13);
}

float bfloat_to_float(uint16_t h) { return bits_f32(uint32_t(h) << 16); }

uint16_t float_to_bfloat(float f) {
  const uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

namespace scalar {

void halves_to_floats(const uint8_t* h, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t v;
    std::memcpy(&v, h + 2 * i, 2);
    store_f32(out + 4 * i, kernels::half_to_float(v));
  }
}

void bfloats_to_floats(const uint8_t* h, size_t n, uint8_t* out) {
  for (size_t i = 0; i < n; ++i) {
    uint16_t v;
    std::memcpy(&v, h + 2 * i, 2);
    store_f32(out + 4 * i, kernels::bfloat_to_float(v));
  }
}

}  // namespace scalar

#if ONNX_SHRINK_SIMD
namespace simd {

void halves_to_floats(const uint8_t* h, size_t n, uint8_t* out) {
  const v4::i32 low15 = v4::isplat(0x7fff), sign_bit = v4::isplat(int32_t(0x80000000u));
  const v4::i32 exp_all = v4::isplat(0x7f800000), last_finite = v4::isplat(0x7bff);
  const v4::f32 rescale = v4::as_f32(v4::isplat(0x77800000));
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v4::i32 v = v4::load_u16x4(h + 2 * i);
    const v4::i32 sign = v4::band(v4::shl(v, 16), sign_bit);
    const v4::i32 em = v4::band(v, low15);
    const v4::i32 shifted = v4::shl(em, 13);
    const v4::i32 finite = v4::as_i32(v4::mul(v4::as_f32(shifted), rescale));
    const v4::i32 special = v4::bor(shifted, exp_all);
    v4::store(out + 4 * i, v4::as_f32(v4::bor(sign, v4::select(v4::gt_i32(em, last_finite), special, finite))));
  }
  scalar::halves_to_floats(h + 2 * i, n - i, out + 4 * i);
}

void bfloats_to_floats(const uint8_t* h, size_t n, uint8_t* out) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) v4::store(out + 4 * i, v4::as_f32(v4::shl(v4::load_u16x4(h + 2 * i), 16)));
  scalar::bfloats_to_floats(h + 2 * i, n - i, out + 4 * i);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
