// The separable factors' two passes over a weight (src/int8_layout.h): the absolute maxima along
// an axis and the values divided along it, against plain loops, for every axis of shapes with short
// runs (a conv kernel's 3x3 or 1x3 values), long runs and none; tails that are not whole SIMD
// vectors included.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "int8_layout.h"
#include "kernels/kernels.h"

namespace os = onnx_shrink;
namespace k = onnx_shrink::kernels;

namespace {

std::vector<uint8_t> values(uint64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> x(4 * n);
  for (uint64_t i = 0; i < n; ++i) k::store_f32(x.data() + 4 * i, static_cast<float>(rng() / 4294967296.0 - 0.45) * 3.0f);
  return x;
}

}  // namespace

TEST(Int8Layout, FactorsAndDivisionAlongEveryAxisMatchPlainLoops) {
  const std::vector<std::vector<int64_t>> shapes = {{7, 5, 3, 3}, {6, 9, 1, 3}, {4, 3, 33}, {37, 13}, {5, 2, 7, 17}};
  for (const std::vector<int64_t>& dims : shapes) {
    const uint64_t n = os::element_count(dims);
    const std::vector<uint8_t> x = values(n, static_cast<uint32_t>(n));
    for (int64_t axis = 0; axis < static_cast<int64_t>(dims.size()); ++axis) {
      const os::AxisView v = os::view_around(dims, axis);
      std::vector<float> expected(v.extent, 0.0f), factors(v.extent);
      for (uint64_t i = 0; i < n; ++i) {
        float& m = expected[(i / v.inner) % v.extent];
        m = std::max(m, std::fabs(k::load_f32(x.data() + 4 * i)));
      }
      os::Int8Layout l;
      l.factor_axis = axis;
      l.factor_power = 4;  // max|x| itself
      EXPECT_EQ(os::layout_factors(l, x.data(), dims), expected) << "axis " << axis << " of a " << dims.size() << "-d shape";
      for (uint64_t j = 0; j < v.extent; ++j) factors[j] = 0.5f + 0.125f * static_cast<float>(j % 7);
      std::vector<uint8_t> out(4 * n);
      os::multiply_along(x.data(), dims, axis, factors.data(), out.data());
      for (uint64_t i = 0; i < n; ++i) {
        const float want = k::load_f32(x.data() + 4 * i) * factors[(i / v.inner) % v.extent];
        ASSERT_EQ(k::load_f32(out.data() + 4 * i), want) << "value " << i << ", axis " << axis;
      }
    }
  }
}
