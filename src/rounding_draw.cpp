#include "rounding_draw.h"

#include <cmath>

namespace onnx_shrink {

float draw_shift(const Int8Layout& l, uint64_t g) {
  if (l.draw == 0) return 0.0f;
  // splitmix64 of (draw, tensor, group): the same on every platform, so native and wasm agree.
  uint64_t h = (uint64_t(l.draw) * 0x9E3779B97F4A7C15ull) ^ (l.salt * 0xBF58476D1CE4E5B9ull) ^ (g * 0x94D049BB133111EBull);
  h ^= h >> 30, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 27, h *= 0x94D049BB133111EBull, h ^= h >> 31;
  return static_cast<float>(h >> 40) * (1.0f / 16777216.0f) - 0.5f;  // [-1/2, 1/2)
}

namespace {

constexpr double kDrawTolerance = 1.0471285480508996;  // 0.2 dB

bool within_tolerance(const kernels::ErrorSums& standard, const kernels::ErrorSums& drawn) {
  return drawn.noise <= standard.noise * kDrawTolerance && drawn.noise * kDrawTolerance >= standard.noise;
}

// Out of line: not worth a copy of group_of's switch in each loop.
[[gnu::noinline]] uint64_t group_at(const Int8Layout& l, uint64_t k) { return group_of(l, k); }

}  // namespace

void redraw(const Int8Layout& l, const uint8_t* x, uint64_t n, int8_t* out, std::vector<kernels::Int8Params>& params,
            kernels::ErrorSums& e, const float* row_weights, uint8_t* low) {
  std::vector<float> shift(l.groups);
  for (uint64_t g = 0; g < l.groups; ++g) shift[g] = draw_shift(l, g);
  for (uint64_t k = 0; k < n; ++k) {
    if (kernels::load_f32(x + 4 * k) == 0.0f) shift[group_at(l, k)] = 0.0f;  // zeros stay zeros
  }
  // First the error sums, weighted per row as the kernels weight them; the codes once accepted.
  const uint64_t row_length = !row_weights ? 0 : l.kind == Int8Layout::Rows ? l.inner : l.channels;
  kernels::ErrorSums drawn;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t k = 0; k < n; ++k) {
      const uint64_t g = group_at(l, k);
      const kernels::Int8Params& p = params[g];
      const float v = kernels::load_f32(x + 4 * k), offset = p.offset + shift[g] * p.scale;
      const int32_t first = p.first(), last = p.last();
      int32_t q = static_cast<int32_t>(std::nearbyint(v * p.inv_scale - shift[g])) + p.zero;
      q = q < first ? first : q > last ? last : q;
      if (pass) {
        out[k] = static_cast<int8_t>(q >> p.bits);
        if (p.bits) low[k] = static_cast<uint8_t>(q & ((1 << p.bits) - 1));
        continue;
      }
      const float d = v - (static_cast<float>(q) * p.scale + offset);
      const double w = row_length ? row_weights[k / row_length] : 1.0;
      drawn.signal += w * double(v) * v;
      drawn.noise += w * double(d) * d;
    }
    if (!within_tolerance(e, drawn)) return;
  }
  for (uint64_t g = 0; g < l.groups; ++g) params[g].offset += shift[g] * params[g].scale;
  e = drawn;
}

}  // namespace onnx_shrink
