// keep_codes_finite: a code whose value is not finite in the tensor's type moves inward, in every
// form of the dequantization chain; ordinary tensors are left untouched; sums become exact.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "int8_layout.h"
#include "kernels/kernels.h"
#include "proto/onnx_fields.h"
#include "saturation.h"

namespace os = onnx_shrink;
namespace k = onnx_shrink::kernels;

namespace {

// A [2, 4] tensor coded per row (axis 0), its values as fp32 bytes.
struct Tensor {
  std::vector<int64_t> dims{2, 4};
  os::Int8Layout layout;
  std::vector<uint8_t> values;
  std::vector<int8_t> codes;
  Tensor(std::vector<float> x, std::vector<int8_t> q) : codes(std::move(q)) {
    layout.kind = os::Int8Layout::Rows;  // (uniform_layout keeps a tensor this small whole)
    layout.axis = 0, layout.channels = 2, layout.inner = 4, layout.groups = 2;
    values.resize(4 * x.size());
    for (size_t i = 0; i < x.size(); ++i) k::store_f32(values.data() + 4 * i, x[i]);
  }
  os::Dequantization chain(int32_t type) {
    os::Dequantization d;
    d.layout = &layout, d.dims = &dims, d.data_type = type;
    return d;
  }
};

bool half_finite(float r) { return (k::float_to_half(r) & 0x7c00) != 0x7c00; }

TEST(Saturation, FoldFormFp16MovesTheTopCodeInward) {
  // Row 0 spans [-65504, 65504]: 127 * 514 + 0 = 65278 is fine, but an offset of 300 puts code
  // 127 at 65578, which fp16 rounds to infinity. Row 1 is ordinary.
  Tensor t({65504, 1, -2, 0, 0.5f, 0.25f, 0, -0.5f}, {127, 0, 0, 0, 127, 64, 0, -127});
  const std::vector<float> scales{514, 0.5f / 127}, offsets{300, 0};
  os::Dequantization d = t.chain(os::onnx::kFloat16);
  d.scales = scales.data(), d.offsets = offsets.data();
  double signal = 1, noise = 1;
  EXPECT_EQ(os::keep_codes_finite(d, t.values.data(), t.codes.data(), 8, signal, noise), 1u);
  EXPECT_EQ(t.codes[0], 126);  // 126 * 514 + 300 = 65064
  EXPECT_TRUE(half_finite(126.0f * 514 + 300));
  EXPECT_EQ(t.codes[4], 127);  // the ordinary row is as it was
  // Exact sums of the values and errors, as the chain computes them.
  double s = 0, e = 0;
  for (size_t i = 0; i < 8; ++i) {
    const double x = k::load_f32(t.values.data() + 4 * i);
    const size_t g = i / 4;
    const double r = float(float(t.codes[i]) * scales[g]) + offsets[g];
    s += x * x, e += (x - r) * (x - r);
  }
  EXPECT_DOUBLE_EQ(signal, s);
  EXPECT_NEAR(noise, e, 1e-9 * e);
}

TEST(Saturation, DqFormAndNegativeValuesMoveTheOtherWay) {
  // DequantizeLinear: (q - zero) * scale = (-128 - 0) * 520 = -66560: past -65504.
  Tensor t({-65504, 0, 0, 0, 1, 1, 1, 1}, {-128, 0, 0, 0, 1, 1, 1, 1});
  const std::vector<float> scales{520, 1};
  const std::vector<int8_t> zeros{0, 0};
  os::Dequantization d = t.chain(os::onnx::kFloat16);
  d.form = os::Form::Dq, d.scales = scales.data(), d.zeros = zeros.data();
  double signal = 0, noise = 0;
  EXPECT_EQ(os::keep_codes_finite(d, t.values.data(), t.codes.data(), 8, signal, noise), 1u);
  EXPECT_EQ(t.codes[0], -125);  // -126 * 520 = -65520 still rounds to -inf in fp16; -125 * 520 does not
}

TEST(Saturation, CodebookWithFactorsAndFp32Overflow) {
  // A codebook: table[q] times a factor per row. Row 0's factor takes table[255] past FLT_MAX, and
  // the code moves as far as it must (to index 226, the first whose value is finite).
  Tensor t({3.0e38f, 0, 0, 0, 0, 0, 0, 0}, {-1, 0, 0, 0, 0, 0, 0, 0});
  t.layout.codebook = true;
  std::vector<float> table(256);
  for (int j = 0; j < 256; ++j) table[j] = float(j) / 200.0f;  // table[255] * 3e38 = 3.8e38
  const std::vector<float> factors{3.0e38f, 1};
  os::Dequantization d = t.chain(os::onnx::kFloat);
  d.table = table.data(), d.factors = factors.data();
  double signal = 0, noise = 0;
  EXPECT_EQ(os::keep_codes_finite(d, t.values.data(), t.codes.data(), 8, signal, noise), 1u);
  const uint8_t index = static_cast<uint8_t>(t.codes[0]);
  EXPECT_EQ(index, 226);
  EXPECT_TRUE(std::isfinite(table[index] * factors[0]));
  EXPECT_FALSE(std::isfinite(table[index + 1] * factors[0]));
  EXPECT_TRUE(std::isfinite(noise));
}

TEST(Saturation, OrdinaryTensorsAreUntouchedAndTheirSumsKept) {
  Tensor t({1, 2, 3, 4, -1, -2, -3, -4}, {32, 64, 96, 127, -32, -64, -96, -128});
  const std::vector<float> scales{4.0f / 127, 4.0f / 128}, offsets{0, 0};
  os::Dequantization d = t.chain(os::onnx::kFloat16);
  d.scales = scales.data(), d.offsets = offsets.data();
  const std::vector<int8_t> before = t.codes;
  double signal = 12.5, noise = 0.25;  // not recomputed: nothing moved and both are finite
  EXPECT_EQ(os::keep_codes_finite(d, t.values.data(), t.codes.data(), 8, signal, noise), 0u);
  EXPECT_EQ(t.codes, before);
  EXPECT_EQ(signal, 12.5);
  EXPECT_EQ(noise, 0.25);
  // Sums that overflowed in the kernels' fp32 lanes are recomputed exactly.
  noise = INFINITY;
  EXPECT_EQ(os::keep_codes_finite(d, t.values.data(), t.codes.data(), 8, signal, noise), 0u);
  EXPECT_DOUBLE_EQ(signal, 60.0);
  EXPECT_TRUE(std::isfinite(noise));
}

}  // namespace
