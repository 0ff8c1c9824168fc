#include "saturation.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/kernels.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {
namespace {

// Codes whose values are all below this in magnitude need no check: fp16's largest number, and
// for the other types bf16's (fp32's FLT_MAX less a margin).
float largest(int32_t type) {
  return onnx::largest_finite(type == onnx::kFloat16 ? type : onnx::kBfloat16);
}

bool finite_in(float r, int32_t type) {
  if (!std::isfinite(r)) return false;
  if (type == onnx::kFloat16) return (kernels::float_to_half(r) & 0x7c00) != 0x7c00;
  if (type == onnx::kBfloat16) return (kernels::float_to_bfloat(r) & 0x7f80) != 0x7f80;
  return true;  // fp32, and fp64 (cast from a finite fp32)
}

class Chain {
 public:
  explicit Chain(const Dequantization& d) : d_(d), l_(*d.layout) {
    const int64_t axis = l_.codebook ? l_.axis : l_.factor_axis;
    if (d.factors && axis >= 0) {
      factor_extent_ = static_cast<uint64_t>((*d.dims)[static_cast<size_t>(axis)]);
      for (size_t a = static_cast<size_t>(axis) + 1; a < d.dims->size(); ++a) factor_stride_ *= static_cast<uint64_t>((*d.dims)[a]);
    }
  }

  // The value of code q at storage index k, computed as the graph computes it (fp32 operations in
  // the chain's order: -ffp-contract=off keeps them unfused).
  float value(int8_t q, uint64_t k) const {
    float r;
    if (l_.codebook) {
      r = d_.table[static_cast<uint8_t>(q)];
    } else {
      const uint64_t g = group_of(l_, k);
      if (d_.form == Form::Dq) {
        r = static_cast<float>(static_cast<int32_t>(q) - d_.zeros[g]) * d_.scales[g];
      } else {
        const float scaled = static_cast<float>(q) * d_.scales[g];
        r = scaled + d_.offsets[g];
      }
    }
    if (factor_extent_) r = r * d_.factors[(k / factor_stride_) % factor_extent_];
    return r;
  }

  // A bound on |value| over every code, from the parameters alone.
  double bound() const {
    double most = 0;
    if (l_.codebook) {
      for (int c = 0; c < 256; ++c) most = std::max(most, std::fabs(double(d_.table[c])));
    } else {
      for (uint64_t g = 0; g < l_.groups; ++g) {
        for (const int32_t q : {-128, 127}) {
          const double r = d_.form == Form::Dq ? double(q - d_.zeros[g]) * d_.scales[g] : double(q) * d_.scales[g] + d_.offsets[g];
          most = std::max(most, std::fabs(r));
        }
      }
    }
    if (factor_extent_) {
      double f = 0;
      for (uint64_t j = 0; j < factor_extent_; ++j) f = std::max(f, std::fabs(double(d_.factors[j])));
      most *= f;
    }
    return most;
  }

  // The code one step inward from q for a value r: toward smaller magnitude. Scales, factors and
  // codebook tables are positive and ascending, so a smaller code gives a smaller value.
  static bool step_inward(int8_t& q, float r) {
    if (r > 0 && q > -128) return --q, true;
    if (r < 0 && q < 127) return ++q, true;
    return false;
  }

 private:
  const Dequantization& d_;
  const Int8Layout& l_;
  uint64_t factor_extent_ = 0, factor_stride_ = 1;
};

}  // namespace

uint64_t keep_codes_finite(const Dequantization& d, const uint8_t* values, int8_t* codes, uint64_t n, double& signal,
                           double& noise) {
  const Chain chain(d);
  uint64_t moved = 0;
  // Margin for the rounding of the fp32 operations themselves.
  if (chain.bound() * (1 + 1e-5) >= double(largest(d.data_type))) {
    for (uint64_t k = 0; k < n; ++k) {
      float r = chain.value(codes[k], k);
      if (finite_in(r, d.data_type)) continue;
      // Values shrink toward the innermost codes (near zero), so this ends; usually after one step.
      while (!finite_in(r, d.data_type) && Chain::step_inward(codes[k], r)) r = chain.value(codes[k], k);
      moved += 1;
    }
  }
  // Also when the kernels' fp32 lanes overflowed (values past 1.8e19 square past float32).
  if (moved || !std::isfinite(signal) || !std::isfinite(noise)) {
    signal = noise = 0;
    for (uint64_t k = 0; k < n; ++k) {
      const double x = kernels::load_f32(values + 4 * k), e = x - double(chain.value(codes[k], k));
      signal += x * x;
      noise += e * e;
    }
  }
  return moved;
}

void note_rounded_inward(TensorReport& report, uint64_t moved, int32_t data_type) {
  if (!report.reason.empty()) report.reason += "; ";
  report.reason += std::to_string(moved) + (moved == 1 ? " value" : " values") + " at the edge of " +
                   onnx::dtype_name(data_type) + "'s range rounded inward (outward " + (moved == 1 ? "it" : "they") +
                   " would be infinite)";
}

}  // namespace onnx_shrink
