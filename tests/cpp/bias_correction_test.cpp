// Bias correction: every group's errors, factors included, sum to zero afterwards; groups with an
// exact zero keep their offsets; the squared-error change it reports is the real one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bias_correction.h"
#include "int8_layout.h"
#include "kernels/kernels.h"
#include "kernels/simd.h"

namespace os = onnx_shrink;
namespace k = onnx_shrink::kernels;

namespace {

struct Case {
  std::vector<int64_t> dims;
  os::Int8Layout layout;
  std::vector<uint8_t> values;  // fp32 bytes, as coded (divided by the factors)
  std::vector<int8_t> codes;
  std::vector<float> scales, offsets, factors;
};

// Values from mt19937's raw output (its distributions differ between standard libraries), coded
// per group with a scale and an offset, then the group of `zero_group` given an exact zero.
Case make_case(std::vector<int64_t> dims, int64_t axis, int64_t factor_axis, uint64_t zero_group) {
  Case c;
  c.dims = dims;
  std::string note;
  c.layout = os::uniform_layout(dims, axis, 0, onnx_shrink::Form::Fold, note);
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);
  std::mt19937 rng(11);
  c.values.resize(4 * n);
  for (uint64_t i = 0; i < n; ++i) k::store_f32(c.values.data() + 4 * i, static_cast<float>(rng() / 4294967296.0 - 0.3));
  if (factor_axis >= 0) {
    c.layout.factor_axis = factor_axis;
    c.factors.resize(static_cast<size_t>(dims[static_cast<size_t>(factor_axis)]));
    for (size_t j = 0; j < c.factors.size(); ++j) c.factors[j] = 0.5f + 0.25f * static_cast<float>(j % 5);
  }
  c.scales.assign(c.layout.groups, 1.0f / 127);
  c.offsets.assign(c.layout.groups, 0.0f);
  c.codes.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    const float v = k::load_f32(c.values.data() + 4 * i);
    c.codes[i] = static_cast<int8_t>(std::lround(std::fmin(127.0f, std::fmax(-128.0f, v * 127))));
  }
  // An exact zero in one group (its value, and so its code, is 0).
  for (uint64_t i = 0; i < n; ++i) {
    if (os::group_of(c.layout, i) == zero_group) {
      k::store_f32(c.values.data() + 4 * i, 0.0f);
      c.codes[i] = 0;
      break;
    }
  }
  return c;
}

double factor_of(const Case& c, uint64_t i) {
  if (c.factors.empty()) return 1.0;
  const os::AxisView v = os::view_around(c.dims, c.layout.factor_axis);
  return c.factors[(i / v.inner) % v.extent];
}

// Per group: the sum of errors as the model sees them, and the total squared error.
std::pair<std::vector<double>, double> errors(const Case& c) {
  std::vector<double> sums(c.layout.groups, 0.0);
  double squared = 0;
  for (uint64_t i = 0; i < c.codes.size(); ++i) {
    const uint64_t g = os::group_of(c.layout, i);
    const float u = static_cast<float>(c.codes[i]) * c.scales[g] + c.offsets[g];
    const double e = (static_cast<double>(k::load_f32(c.values.data() + 4 * i)) - u) * factor_of(c, i);
    sums[g] += e;
    squared += e * e;
  }
  return {sums, squared};
}

void check(Case c, uint64_t zero_group) {
  const auto [before_sums, before] = errors(c);
  const std::vector<float> offsets_before = c.offsets;
  // Groups that are runs of values also give the weighted error sums on the way.
  const bool runs = c.layout.kind == os::Int8Layout::Rows || c.layout.kind == os::Int8Layout::Tensor;
  k::ErrorSums weighted;
  const double change = os::correct_offsets(c.layout, c.dims, c.values.data(), c.codes.data(),
                                            c.factors.empty() ? nullptr : c.factors.data(), c.scales.data(), c.offsets.data(),
                                            nullptr, 0, runs ? &weighted : nullptr);
  if (runs) {
    double signal = 0;
    for (uint64_t i = 0; i < c.codes.size(); ++i) {
      const double v = static_cast<double>(k::load_f32(c.values.data() + 4 * i)) * factor_of(c, i);
      signal += v * v;
    }
    // Summed in float over blocks of 256 values (32 to a sum), then in double: a few float roundings.
    EXPECT_NEAR(weighted.noise, before, 1e-6 * before);
    EXPECT_NEAR(weighted.signal, signal, 1e-6 * signal);
  }
  const auto [after_sums, after] = errors(c);
  EXPECT_NEAR(after - before, change, 1e-4 * std::fabs(change) + 1e-9 * before);
  EXPECT_LT(after, before * 1.0001);  // moving the mean never costs much, usually it saves
  int moved = 0;
  for (uint64_t g = 0; g < c.layout.groups; ++g) {
    if (g == zero_group) {
      EXPECT_EQ(c.offsets[g], offsets_before[g]);  // a group with an exact zero keeps it exact
      continue;
    }
    EXPECT_NEAR(after_sums[g], 0.0, 1e-5 * (1 + std::fabs(before_sums[g]))) << "group " << g;
    moved += c.offsets[g] != offsets_before[g];
  }
  EXPECT_GT(moved, 0);
}

}  // namespace

TEST(BiasCorrection, MatMulColumnsWithRowFactors) { check(make_case({96, 40}, 1, 0, 3), 3); }
TEST(BiasCorrection, MatMulColumnsPlain) { check(make_case({96, 40}, 1, -1, 7), 7); }
TEST(BiasCorrection, ConvRowsWithInputChannelFactors) { check(make_case({12, 10, 3, 3}, 0, 1, 5), 5); }
TEST(BiasCorrection, ConvRowsPlain) { check(make_case({12, 10, 3, 3}, 0, -1, 0), 0); }
// Groups longer than one stretch of the sums (32768 values): rows of a conv kernel with 4000 input
// channels, and a whole tensor whose stretches start at different places in the factors' period
// (its factors laid out afresh for each). Over 36000 values the float rounding of the
// reconstruction moves the squared error by more than check() allows, so the offsets are compared
// with the mean error computed here directly: within a float step either way, plus what the float
// sums of each block of 256 values (bias_correction.cpp) leave: a millionth of the group's step.
void check_offsets(Case c, uint64_t zero_group) {
  const auto [before_sums, before] = errors(c);
  std::vector<double> sum_f(c.layout.groups, 0.0);
  for (uint64_t i = 0; i < c.codes.size(); ++i) sum_f[os::group_of(c.layout, i)] += factor_of(c, i);
  const std::vector<float> offsets_before = c.offsets;
  os::correct_offsets(c.layout, c.dims, c.values.data(), c.codes.data(), c.factors.empty() ? nullptr : c.factors.data(),
                      c.scales.data(), c.offsets.data());
  for (uint64_t g = 0; g < c.layout.groups; ++g) {
    if (g == zero_group) {
      EXPECT_EQ(c.offsets[g], offsets_before[g]);
      continue;
    }
    const double expected = offsets_before[g] + before_sums[g] / sum_f[g];
    EXPECT_NE(c.offsets[g], offsets_before[g]) << "group " << g;
    EXPECT_NEAR(c.offsets[g], expected, std::fabs(expected) * 1.2e-7 + 1e-6 * c.scales[g]) << "group " << g;
  }
}
TEST(BiasCorrection, ConvRowsLongerThanAStretch) { check_offsets(make_case({3, 4000, 3, 3}, 0, 1, 1), 1); }
TEST(BiasCorrection, WholeTensorWithFactors) { check_offsets(make_case({100, 40, 3, 3}, -1, 1, 5), 5); }

// Codes with 8 low bits (values up to 255, read back unsigned): each column's errors, whole codes
// and all, sum to zero afterwards, as with 8-bit codes.
TEST(BiasCorrection, MatMulColumnsWithEightLowBits) {
  const uint64_t rows = 300, cols = 24, n = rows * cols;
  std::string note;
  const os::Int8Layout l = os::uniform_layout({300, 24}, 1, 0, onnx_shrink::Form::Fold, note);
  ASSERT_EQ(l.kind, os::Int8Layout::Columns);
  std::mt19937 rng(3);
  std::vector<uint8_t> values(4 * n);
  for (uint64_t i = 0; i < n; ++i) k::store_f32(values.data() + 4 * i, static_cast<float>(rng() / 4294967296.0 - 0.3));
  std::vector<float> lo(cols, 0.0f), hi(cols, 0.0f);
  bool finite = true;
  k::minmax_columns(values.data(), rows, cols, lo.data(), hi.data(), finite);
  std::vector<k::Int8Params> params(cols);
  std::vector<float> scales(cols), offsets(cols);
  for (uint64_t c = 0; c < cols; ++c) params[c] = k::int8_params(lo[c], hi[c], 8), scales[c] = params[c].scale, offsets[c] = params[c].offset;
  std::vector<int8_t> codes(n);
  std::vector<uint8_t> low(n);
  k::ErrorSums e;
  k::quantize_columns(values.data(), rows, cols, params.data(), codes.data(), e, nullptr, low.data());
  ASSERT_GT(*std::max_element(low.begin(), low.end()), 200);
  // Shift every offset by a third of a step, so that there is a mean to remove.
  for (float& o : offsets) o += scales[0] / 3;
  os::correct_offsets(l, {300, 24}, values.data(), codes.data(), nullptr, scales.data(), offsets.data(), low.data(), 8);
  for (uint64_t c = 0; c < cols; ++c) {
    double sum = 0;
    for (uint64_t r = 0; r < rows; ++r) {
      const uint64_t i = r * cols + c;
      const float code = static_cast<float>(codes[i] * 256 + low[i]);
      sum += static_cast<double>(k::load_f32(values.data() + 4 * i)) - (code * scales[c] + offsets[c]);
    }
    EXPECT_NEAR(sum / rows, 0.0, 0.01 * scales[c]) << "column " << c;
  }
}

// code_groups makes the codes kernels::quantize and quantize_columns make, and moves the offsets
// as correct_offsets moves them after those: the same bits, for every kind of layout, with and
// without factors and low bits. Without the correction it leaves the params' offsets.
namespace {

void check_code_groups(const std::vector<int64_t>& dims, int64_t axis, int64_t factor_axis, uint32_t block, int32_t low_bits) {
  std::string note;
  os::Int8Layout l = os::uniform_layout(dims, axis, block, onnx_shrink::Form::Fold, note);
  l.low_bits = low_bits;
  const uint64_t n = os::element_count(dims);
  std::mt19937 rng(7);
  std::vector<uint8_t> values(4 * n);
  for (uint64_t i = 0; i < n; ++i) k::store_f32(values.data() + 4 * i, static_cast<float>(rng() / 4294967296.0 - 0.3));
  if (l.groups > 1) k::store_f32(values.data() + 4 * (n / 3), 0.0f);  // one group with an exact zero
  std::vector<float> factors;
  if (factor_axis >= 0) {
    l.factor_axis = factor_axis;
    factors.resize(static_cast<size_t>(dims[static_cast<size_t>(factor_axis)]));
    for (size_t j = 0; j < factors.size(); ++j) factors[j] = 0.5f + 0.25f * static_cast<float>(j % 5);
  }
  const float* f = factors.empty() ? nullptr : factors.data();
  std::vector<float> lo, hi;
  os::group_ranges(l, values.data(), n, lo, hi);
  std::vector<k::Int8Params> params(l.groups);
  std::vector<float> scales(l.groups), offsets(l.groups);
  for (uint64_t g = 0; g < l.groups; ++g) {
    params[g] = k::int8_params(lo[g], hi[g], low_bits);
    scales[g] = params[g].scale, offsets[g] = params[g].offset;
  }
  // The kernels' codes, group by group as the layout lays them out.
  std::vector<int8_t> codes(n);
  std::vector<uint8_t> low(n);
  uint8_t* lq = low_bits ? low.data() : nullptr;
  k::ErrorSums e;
  const uint8_t* x = values.data();
  switch (l.kind) {
    case os::Int8Layout::Tensor:
      k::quantize(x, n, params[0], codes.data(), e, lq);
      break;
    case os::Int8Layout::Rows:
      for (uint64_t r = 0; r < l.outer * l.channels; ++r) {
        k::quantize(x + 4 * r * l.inner, l.inner, params[r % l.channels], codes.data() + r * l.inner, e, lq ? lq + r * l.inner : nullptr);
      }
      break;
    case os::Int8Layout::RowBlocks:
      for (uint64_t g = 0; g < l.groups; ++g) {
        k::quantize(x + 4 * g * l.block, l.block, params[g], codes.data() + g * l.block, e, lq ? lq + g * l.block : nullptr);
      }
      break;
    default: {
      const uint64_t c = l.channels, rows = l.kind == os::Int8Layout::Columns ? l.outer : l.block;
      for (uint64_t b = 0; b < l.groups / c; ++b) {
        k::quantize_columns(x + 4 * b * rows * c, rows, c, &params[b * c], codes.data() + b * rows * c, e, nullptr,
                            lq ? lq + b * rows * c : nullptr);
      }
    }
  }
  const double expected_change = os::correct_offsets(l, dims, x, codes.data(), f, scales.data(), offsets.data(), lq, low_bits);

  std::vector<int8_t> made(n);
  std::vector<uint8_t> made_low(n);
  std::vector<float> moved(l.groups), kept(l.groups);
  k::ErrorSums sums, unused;
  uint8_t* made_lq = low_bits ? made_low.data() : nullptr;
  const double change = os::code_groups(l, dims, x, params.data(), made.data(), made_lq, f, moved.data(), true, sums);
  EXPECT_EQ(made, codes);
  EXPECT_EQ(made_low, low_bits ? low : std::vector<uint8_t>(n));
  EXPECT_EQ(moved, offsets);
  EXPECT_EQ(change, expected_change);
  int changed = 0;
  for (uint64_t g = 0; g < l.groups; ++g) changed += moved[g] != params[g].offset;
  EXPECT_GT(changed, 0);
  // The error sums: (value x factor)^2 and, before the correction, (error x factor)^2.
  double signal = 0, noise = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t g = os::group_of(l, i);
    double fi = 1;
    if (f) {
      const os::AxisView v = os::view_around(dims, factor_axis);
      fi = f[(i / v.inner) % v.extent];
    }
    const float code = static_cast<float>(codes[i] * (1 << low_bits) + (low_bits ? low[i] : 0));
    const double value = k::load_f32(x + 4 * i), d = value - (code * scales[g] + params[g].offset);
    signal += value * value * fi * fi;
    noise += d * d * fi * fi;
  }
  EXPECT_NEAR(sums.signal, signal, 1e-5 * signal);
  EXPECT_NEAR(sums.noise, noise, 1e-5 * noise);
  // Without the correction: the same codes, the params' offsets.
  std::fill(made.begin(), made.end(), 0);
  EXPECT_EQ(os::code_groups(l, dims, x, params.data(), made.data(), made_lq, f, kept.data(), false, unused), 0.0);
  EXPECT_EQ(made, codes);
  for (uint64_t g = 0; g < l.groups; ++g) EXPECT_EQ(kept[g], params[g].offset) << g;
}

}  // namespace

TEST(CodeGroups, ConvRowsWithFactors) { check_code_groups({12, 10, 3, 3}, 0, 1, 0, 0); }
TEST(CodeGroups, ConvRowsPlainAndWithLowBits) {
  check_code_groups({12, 10, 3, 3}, 0, -1, 0, 0);
  check_code_groups({12, 10, 3, 3}, 0, 1, 0, 2);
}
TEST(CodeGroups, WholeTensor) { check_code_groups({4099}, 0, -1, 0, 0); }
TEST(CodeGroups, RowBlocks) { check_code_groups({8, 64}, 0, -1, 16, 0); }
TEST(CodeGroups, MatMulColumnsWithAndWithoutFactors) {
  check_code_groups({96, 40}, 1, 0, 0, 0);
  check_code_groups({96, 40}, 1, -1, 0, 8);
  check_code_groups({50, 7}, 1, 0, 0, 0);  // columns past the last four
}
TEST(CodeGroups, ColumnBlocks) { check_code_groups({64, 12}, 1, -1, 16, 0); }
