// The kernels: every SIMD version against its scalar reference (bit-identical results where they
// reach the output file), and the scalar references against first principles.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/palette_levels.h"

namespace k = onnx_shrink::kernels;
namespace palette = onnx_shrink::palette;

namespace {

// Random weights with a few outliers, deterministic. `offset` shifts them to exercise misaligned
// loads: the returned pointer is offset bytes into the buffer.
struct Values {
  std::vector<uint8_t> buffer;
  const uint8_t* data = nullptr;
  size_t n = 0;
  float at(size_t i) const { return k::load_f32(data + 4 * i); }
};

Values make_values(size_t n, uint32_t seed, size_t offset = 1, float outlier = 8.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.05f);
  Values v;
  v.buffer.resize(4 * n + 16);
  v.data = v.buffer.data() + offset;
  v.n = n;
  for (size_t i = 0; i < n; ++i) {
    float x = normal(rng);
    if (rng() % 997 == 0) x *= outlier;
    if (rng() % 101 == 0) x = 0.0f;  // exact zeros must survive
    k::store_f32(v.buffer.data() + offset + 4 * i, x);
  }
  return v;
}

#if ONNX_SHRINK_SIMD
constexpr bool kHaveSimd = true;
#else
constexpr bool kHaveSimd = false;
#endif

}  // namespace

TEST(Kernels, MinMaxMatchesScalarAndFindsNonFinite) {
  for (size_t n : {0, 1, 3, 15, 16, 17, 63, 1000, 4097}) {
    const Values v = make_values(n, 7 + static_cast<uint32_t>(n), 3);
    float lo1 = 1e9f, hi1 = -1e9f, lo2 = 1e9f, hi2 = -1e9f;
    bool f1 = true, f2 = true;
    k::scalar::minmax(v.data, n, lo1, hi1, f1);
    k::minmax(v.data, n, lo2, hi2, f2);
    float lo = 1e9f, hi = -1e9f;
    for (size_t i = 0; i < n; ++i) lo = std::min(lo, v.at(i)), hi = std::max(hi, v.at(i));
    EXPECT_EQ(lo1, lo) << n;
    EXPECT_EQ(hi1, hi) << n;
    EXPECT_EQ(lo2, lo) << n;
    EXPECT_EQ(hi2, hi) << n;
    EXPECT_TRUE(f1 && f2);
  }
  for (float bad : {NAN, INFINITY, -INFINITY}) {
    for (size_t where : {0, 5, 17, 999}) {
      Values v = make_values(1000, 3);
      k::store_f32(v.buffer.data() + 1 + 4 * where, bad);
      float lo = 0, hi = 0;
      bool f1 = true, f2 = true;
      k::scalar::minmax(v.data, 1000, lo, hi, f1);
      k::minmax(v.data, 1000, lo, hi, f2);
      EXPECT_FALSE(f1) << where;
      EXPECT_FALSE(f2) << where;
    }
  }
}

TEST(Kernels, MinMaxColumnsMatchesScalar) {
  for (size_t cols : {1, 3, 4, 7, 16, 33}) {
    const size_t rows = 29;
    const Values v = make_values(rows * cols, 11, 2);
    std::vector<float> lo1(cols, 1e9f), hi1(cols, -1e9f), lo2 = lo1, hi2 = hi1;
    bool f1 = true, f2 = true;
    k::scalar::minmax_columns(v.data, rows, cols, lo1.data(), hi1.data(), f1);
    k::minmax_columns(v.data, rows, cols, lo2.data(), hi2.data(), f2);
    EXPECT_EQ(lo1, lo2);
    EXPECT_EQ(hi1, hi2);
    for (size_t c = 0; c < cols; ++c) {
      float lo = 1e9f;
      for (size_t r = 0; r < rows; ++r) lo = std::min(lo, v.at(r * cols + c));
      EXPECT_EQ(lo1[c], lo);
    }
  }
  // A NaN or an infinity anywhere (inside a block of four rows, or in the rows after the blocks).
  for (const size_t at : {size_t{5 * 16 + 3}, size_t{28 * 16 + 15}}) {
    for (const float bad : {NAN, INFINITY}) {
      std::vector<float> m(29 * 16, 0.5f);
      m[at] = bad;
      std::vector<float> lo(16, 1e9f), hi(16, -1e9f);
      bool finite = true;
      k::minmax_columns(reinterpret_cast<const uint8_t*>(m.data()), 29, 16, lo.data(), hi.data(), finite);
      EXPECT_FALSE(finite) << at;
    }
  }
}

TEST(Kernels, Int8ParamsKeepZeroExactAndCoverTheRange) {
  for (auto [lo, hi] : std::vector<std::pair<float, float>>{{-1.0f, 1.0f}, {-0.3f, 2.5f}, {0.5f, 2.0f}, {-4.0f, -1.0f}, {0, 0}}) {
    const k::Int8Params p = k::int8_params(lo, hi);
    // 0 maps to the zero point and comes back exactly.
    EXPECT_EQ(static_cast<float>(p.zero) * p.scale + p.offset, 0.0f) << lo << " " << hi;
    EXPECT_GE(p.zero, -128);
    EXPECT_LE(p.zero, 127);
    // The extremes are within half a step of a code.
    for (float x : {lo, hi}) {
      int8_t q;
      k::ErrorSums e;
      const uint8_t* bytes = reinterpret_cast<const uint8_t*>(&x);
      k::scalar::quantize(bytes, 1, p, &q, e);
      EXPECT_LE(std::fabs(static_cast<float>(q) * p.scale + p.offset - x), 0.5f * p.scale * 1.0001f) << x;
    }
  }
}

TEST(Kernels, Int8ParamsWithLowBitsKeepZeroExactAndCoverTheRange) {
  for (int32_t bits : {1, 2, 4, 8}) {
    const float m = static_cast<float>(1 << bits);
    for (auto [lo, hi] : std::vector<std::pair<float, float>>{{-1.0f, 1.0f}, {-0.3f, 2.5f}, {0.5f, 2.0f}, {-4.0f, -1.0f}}) {
      const k::Int8Params p = k::int8_params(lo, hi, bits);
      const k::Int8Params plain = k::int8_params(lo, hi);
      EXPECT_EQ(static_cast<float>(p.zero) * p.scale + p.offset, 0.0f) << lo << " " << hi << " bits " << bits;
      EXPECT_GE(p.zero, -128 * (1 << bits));
      EXPECT_LE(p.zero, 128 * (1 << bits) - 1);
      // The step is 2^bits times finer (up to the rounding of the division).
      EXPECT_NEAR(p.scale * m, plain.scale * 255 * m / (256 * m - 1), 1e-6f * plain.scale);
      for (float x : {lo, hi}) {
        int8_t q;
        uint8_t low;
        k::ErrorSums e;
        k::scalar::quantize(reinterpret_cast<const uint8_t*>(&x), 1, p, &q, e, &low);
        ASSERT_LT(low, 1 << bits);
        // What the graph computes: (high + low / 2^bits) * (scale * 2^bits) + offset.
        const float y = (static_cast<float>(q) + static_cast<float>(low) / m) * (p.scale * m) + p.offset;
        EXPECT_LE(std::fabs(y - x), 0.5f * p.scale * 1.0001f) << x << " bits " << bits;
      }
    }
  }
}

TEST(Kernels, QuantizeMatchesScalarBitForBit) {
  // 8 low bits (--bits 16) have values up to 255, which a signed narrowing would clamp to 127.
  for (int32_t bits : {0, 1, 2, 4, 8}) {
    for (size_t n : {1, 15, 16, 17, 100, 4096, 10007}) {
      const Values v = make_values(n, 100 + static_cast<uint32_t>(n), 1);
      float lo = v.at(0), hi = v.at(0);
      bool finite = true;
      k::scalar::minmax(v.data, n, lo, hi, finite);
      const k::Int8Params p = k::int8_params(lo, hi, bits);
      std::vector<int8_t> a(n), b(n);
      std::vector<uint8_t> la(n, 0xee), lb(n, 0xee);
      k::ErrorSums ea, eb;
      k::scalar::quantize(v.data, n, p, a.data(), ea, bits ? la.data() : nullptr);
      k::quantize(v.data, n, p, b.data(), eb, bits ? lb.data() : nullptr);
      EXPECT_EQ(a, b) << n << " bits " << bits;
      EXPECT_EQ(la, lb) << n << " bits " << bits;
      EXPECT_NEAR(ea.noise, eb.noise, 1e-6 * ea.noise + 1e-30);
      EXPECT_NEAR(ea.signal, eb.signal, 1e-6 * ea.signal);
      // The error is at most half a (fine) step per value, with the code put back together from its parts.
      for (size_t i = 0; i < n; ++i) {
        const float code = static_cast<float>(a[i] * (1 << bits) + (bits ? la[i] : 0));
        if (bits) {
          ASSERT_LT(la[i], 1 << bits);
        }
        // (Plus the float rounding of the reconstruction, which 16-bit codes' steps come near.)
        EXPECT_LE(std::fabs(code * p.scale + p.offset - v.at(i)), 0.5001f * p.scale + 4e-7f * (std::fabs(p.offset) + std::fabs(v.at(i)))) << i;
      }
    }
  }
}

TEST(Kernels, QuantizeColumnsMatchesScalar) {
  for (size_t cols : {1, 15, 16, 17, 48, 50}) {
    const size_t rows = 37;
    const Values v = make_values(rows * cols, 5, 3);
    std::vector<float> lo(cols), hi(cols);
    for (size_t c = 0; c < cols; ++c) lo[c] = hi[c] = v.at(c);
    bool finite = true;
    k::scalar::minmax_columns(v.data, rows, cols, lo.data(), hi.data(), finite);
    for (int32_t bits : {0, 2, 8}) {
      std::vector<k::Int8Params> params(cols);
      for (size_t c = 0; c < cols; ++c) params[c] = k::int8_params(lo[c], hi[c], bits);
      std::vector<int8_t> a(rows * cols), b(rows * cols);
      std::vector<uint8_t> la(rows * cols, 0xee), lb(rows * cols, 0xee);
      k::ErrorSums ea, eb;
      k::scalar::quantize_columns(v.data, rows, cols, params.data(), a.data(), ea, nullptr, bits ? la.data() : nullptr);
      k::quantize_columns(v.data, rows, cols, params.data(), b.data(), eb, nullptr, bits ? lb.data() : nullptr);
      EXPECT_EQ(a, b) << cols << " bits " << bits;
      EXPECT_EQ(la, lb) << cols << " bits " << bits;
      EXPECT_NEAR(ea.noise, eb.noise, 1e-6 * ea.noise + 1e-30);
      // Each column alone, through the one-group kernel, gives the same codes.
      for (size_t c = 0; c < cols && bits; ++c) {
        for (size_t r = 0; r < rows; ++r) {
          int8_t q;
          uint8_t low;
          k::ErrorSums e;
          k::scalar::quantize(v.data + 4 * (r * cols + c), 1, params[c], &q, e, &low);
          ASSERT_EQ(q, a[r * cols + c]);
          ASSERT_EQ(low, la[r * cols + c]);
        }
      }
    }
  }
}

TEST(Kernels, SeedQuantizeMatchesScalarAndTheFormula) {
  const size_t n = 5003;
  const Values v = make_values(n, 42, 2);
  float lo = v.at(0), hi = v.at(0);
  bool finite = true;
  k::scalar::minmax(v.data, n, lo, hi, finite);
  const k::SeedParams p = k::seed_params(lo, hi);
  std::vector<int8_t> a(n), b(n);
  k::ErrorSums ea, eb;
  k::scalar::quantize_seed(v.data, n, p, a.data(), ea);
  k::quantize_seed(v.data, n, p, b.data(), eb);
  EXPECT_EQ(a, b);
  // The formula written out in double where numpy uses float64 and float where it uses float32.
  const double inverse = 1.0 / static_cast<double>(hi - lo);
  const double zero = std::nearbyint(static_cast<double>(-lo) * inverse * 255.0) - 128.0;
  for (size_t i = 0; i < n; i += 97) {
    float t = std::nearbyint(v.at(i) * static_cast<float>(inverse) * 255.0f) + static_cast<float>(zero);
    t = std::min(127.0f, std::max(-128.0f, t));
    EXPECT_EQ(a[i], static_cast<int8_t>(t)) << i;
  }
}

TEST(Kernels, HalfConversionIsExactBothWays) {
  // Every half widens exactly, and narrowing that float gives the half back (NaN stays NaN).
  std::vector<uint8_t> halves(2 * 65536), floats(4 * 65536), floats2(4 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t v = static_cast<uint16_t>(h);
    std::memcpy(&halves[2 * h], &v, 2);
  }
  k::scalar::halves_to_floats(halves.data(), 65536, floats.data());
  k::halves_to_floats(halves.data(), 65536, floats2.data());
  EXPECT_EQ(floats, floats2);
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = k::load_f32(floats.data() + 4 * h);
    if (std::isnan(f)) {
      EXPECT_TRUE((h & 0x7c00) == 0x7c00 && (h & 0x3ff));
      continue;
    }
    EXPECT_EQ(k::float_to_half(f), h) << h;
    // First principles: value = (-1)^s 2^(e-15) (1 + m/1024), or 2^-14 m/1024 when e == 0.
    const int e = (h >> 10) & 31, m = h & 1023;
    const double expect = (h & 0x8000 ? -1.0 : 1.0) * (e == 0 ? std::ldexp(m / 1024.0, -14) : e == 31 ? INFINITY : std::ldexp(1.0 + m / 1024.0, e - 15));
    EXPECT_EQ(static_cast<double>(f), expect) << h;
  }
  // Rounding to nearest, ties to even, between two halves.
  EXPECT_EQ(k::float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie: down to even
  EXPECT_EQ(k::float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: up to even
  EXPECT_EQ(k::float_to_half(65520.0f), 0x7c00);                          // rounds to infinity
  EXPECT_EQ(k::float_to_half(65519.0f), 0x7bff);
}

TEST(Kernels, BfloatConversion) {
  std::vector<uint8_t> halves(2 * 1024), a(4 * 1024), b(4 * 1024);
  std::mt19937 rng(1);
  for (size_t i = 0; i < 1024; ++i) {
    const uint16_t v = static_cast<uint16_t>(rng());
    std::memcpy(&halves[2 * i], &v, 2);
  }
  k::scalar::bfloats_to_floats(halves.data(), 1024, a.data());
  k::bfloats_to_floats(halves.data(), 1024, b.data());
  EXPECT_EQ(a, b);
  EXPECT_EQ(k::float_to_bfloat(1.0f), 0x3f80);
  EXPECT_EQ(k::float_to_bfloat(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie to even
  EXPECT_EQ(k::bfloat_to_float(0x3f80), 1.0f);
}

TEST(Kernels, HistogramAndPaletteIndicesMatchScalar) {
  const size_t n = 20011;
  const Values v = make_values(n, 9, 1);
  float lo = v.at(0), hi = v.at(0);
  bool finite = true;
  k::scalar::minmax(v.data, n, lo, hi, finite);
  palette::Histogram h1 = palette::make_histogram(lo, hi, 256), h2 = h1;
  k::scalar::histogram(v.data, n, h1.min, h1.bin_scale, h1.bins, h1.cells.data());
  k::histogram(v.data, n, h2.min, h2.bin_scale, h2.bins, h2.cells.data());
  EXPECT_TRUE(h1.cells == h2.cells);  // sums accumulated in the same order: identical
  uint64_t total = 0;
  for (const k::Bin& b : h1.cells) total += b.count;
  EXPECT_EQ(total, n);

  const palette::Design d = palette::choose(h1, 256, palette::Choice::Auto);
  std::vector<float> thresholds(d.thresholds.begin(), d.thresholds.end());
  // A deliberately poor guess table: the result must not depend on it.
  std::vector<uint16_t> guess(h1.bins, 0), a(n), b(n);
  k::scalar::palette_indices(v.data, n, h1.min, h1.bin_scale, h1.bins, guess.data(), thresholds.data(),
                             static_cast<uint32_t>(d.levels.size()), a.data());
  k::palette_indices(v.data, n, h1.min, h1.bin_scale, h1.bins, guess.data(), thresholds.data(),
                     static_cast<uint32_t>(d.levels.size()), b.data());
  EXPECT_EQ(a, b);
  for (size_t i = 0; i < n; i += 13) {
    const float x = v.at(i);
    const size_t j = a[i];
    if (j > 0) {
      EXPECT_GE(x, thresholds[j - 1]);
    }
    if (j + 1 < d.levels.size()) {
      EXPECT_LT(x, thresholds[j]);
    }
  }
}

#if ONNX_SHRINK_SIMD
TEST(Kernels, CodesBecomeExactFloats) {
  // load_i8x4_as_float (in WebAssembly a magic-number add, not a conversion) on every int8 code.
  std::vector<int8_t> codes(256 + 3);
  for (int i = 0; i < 256; ++i) codes[i] = static_cast<int8_t>(i - 128);
  for (int i = 0; i < 256; i += 4) {
    alignas(16) float out[4];
    k::v4::store(reinterpret_cast<uint8_t*>(out), k::v4::load_i8x4_as_float(reinterpret_cast<const uint8_t*>(&codes[i])));
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[j], static_cast<float>(i + j - 128)) << "code " << (i + j - 128);
  }
}
#endif

TEST(Kernels, ExpandKernelsAreTheGraphsFloatOperations) {
  // Codes to floats (both versions, every code, a length that leaves a tail), then each step over a
  // run against the fp32 operations written out: per value (stride 1) and one value (stride 0).
  std::vector<uint8_t> codes(259);
  for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint8_t>(i * 7 + 3);
  for (bool is_signed : {true, false}) {
    std::vector<float> a(codes.size()), b(codes.size());
    k::scalar::bytes_to_floats(codes.data(), codes.size(), is_signed, a.data());
    k::bytes_to_floats(codes.data(), codes.size(), is_signed, b.data());
    for (size_t i = 0; i < codes.size(); ++i) {
      EXPECT_EQ(a[i], is_signed ? static_cast<float>(static_cast<int8_t>(codes[i])) : static_cast<float>(codes[i]));
      EXPECT_EQ(k::f32_bits(a[i]), k::f32_bits(b[i]));
    }
  }
  const Values x = make_values(37, 11), s = make_values(37, 12), o = make_values(37, 13);
  for (uint64_t stride : {0, 1}) {
    for (k::RunOp op : {k::RunOp::Mul, k::RunOp::MulAdd, k::RunOp::SubMul}) {
      std::vector<float> v(x.n), ops(2 * x.n);
      for (size_t i = 0; i < x.n; ++i) v[i] = x.at(i), ops[i] = s.at(i), ops[x.n + i] = o.at(i);
      k::apply_run(v.data(), x.n, ops.data(), ops.data() + x.n, stride, op);
      for (size_t i = 0; i < x.n; ++i) {
        const float p = ops[i * stride], q = ops[x.n + i * stride], u = x.at(i);
        volatile float step = op == k::RunOp::SubMul ? u - p : u * p;  // one rounding per operation
        const float want = op == k::RunOp::Mul ? step : op == k::RunOp::MulAdd ? step + q : step * q;
        EXPECT_EQ(k::f32_bits(v[i]), k::f32_bits(want)) << "op " << int(op) << " stride " << stride << " at " << i;
      }
    }
  }
  // A product that is zero keeps its sign through Mul (the SIMD version adds -0 to it).
  const float zeros[8] = {0.0f, -0.0f, 0.0f, -0.0f, 1.0f, -1.0f, 0.0f, -0.0f};
  const float factors[8] = {1.0f, 1.0f, -1.0f, -1.0f, 0.0f, 0.0f, -0.0f, -0.0f};
  const float minus_one = -1.0f;
  for (uint64_t stride : {0, 1}) {
    const float* f = stride ? factors : &minus_one;
    std::vector<float> v(zeros, zeros + 8);
    k::apply_run(v.data(), v.size(), f, f, stride, k::RunOp::Mul);
    for (size_t i = 0; i < v.size(); ++i) {
      volatile float want = zeros[i] * f[i * stride];
      EXPECT_EQ(k::f32_bits(v[i]), k::f32_bits(want)) << "stride " << stride << " at " << i;
    }
  }
  // Low bits: bits 1, 2, 4, 8 packed from the lowest up, from any first value.
  for (uint32_t bits : {1u, 2u, 4u, 8u}) {
    const uint32_t per = 8 / bits;
    for (uint64_t first : {0, 3, 8}) {
      std::vector<float> v(29, 1.0f);
      k::add_low_bits(codes.data(), first, v.size(), bits, v.data());
      for (size_t j = 0; j < v.size(); ++j) {
        const uint64_t i = first + j;
        const uint32_t digit = (codes[i / per] >> (bits * (i % per))) & ((1u << bits) - 1);
        EXPECT_EQ(v[j], 1.0f + std::ldexp(static_cast<float>(digit), -static_cast<int>(bits))) << bits << " bits, value " << i;
      }
    }
  }
}

TEST(Kernels, BinsSurviveInfinityAndNaN) {
  // A bin position past the end (or NaN) clamps the same way in both versions instead of indexing
  // out of bounds.
  std::vector<uint8_t> bytes(4 * 8);
  const float values[8] = {0.0f, 1.0f, INFINITY, -INFINITY, NAN, 3e38f, -3e38f, 0.5f};
  std::memcpy(bytes.data(), values, sizeof values);
  std::vector<k::Bin> c1(16), c2(16);
  k::scalar::histogram(bytes.data(), 8, 0.0f, 8.0f, 16, c1.data());
  k::histogram(bytes.data(), 8, 0.0f, 8.0f, 16, c2.data());
  for (uint32_t bin = 0; bin < 16; ++bin) EXPECT_EQ(c1[bin].count, c2[bin].count) << "bin " << bin;
  std::vector<uint64_t> marked(1, 0);
  k::scalar::mark_bins(bytes.data(), 8, 0.0f, 8.0f, 16, marked.data());
  EXPECT_EQ(marked[0] >> 16, 0u);  // nothing past the last bin
  for (uint32_t bin = 0; bin < 16; ++bin) EXPECT_EQ((marked[0] >> bin) & 1, c1[bin].count != 0 ? 1u : 0u) << "bin " << bin;
}

TEST(Kernels, MarkedBinsAreTheHistogramsOccupiedBins) {
  // The codebook test counts occupied bins with mark_bins instead of a histogram: the same bins.
  for (const uint32_t seed : {1u, 9u}) {
    const size_t n = 20011;
    const Values v = make_values(n, seed, 3);
    float lo = v.at(0), hi = v.at(0);
    bool finite = true;
    k::scalar::minmax(v.data, n, lo, hi, finite);
    palette::Histogram h = palette::make_histogram(lo, hi, 256);
    k::scalar::histogram(v.data, n, h.min, h.bin_scale, h.bins, h.cells.data());
    const palette::Histogram shape = palette::histogram_shape(lo, hi, 256);
    EXPECT_EQ(shape.bins, h.bins);
    EXPECT_EQ(shape.bin_scale, h.bin_scale);
    std::vector<uint64_t> a(h.bins / 64, 0);
    const uint32_t counted = k::scalar::mark_bins(v.data, n, shape.min, shape.bin_scale, shape.bins, a.data());
    uint32_t occupied = 0;
    for (uint32_t bin = 0; bin < h.bins; ++bin) {
      EXPECT_EQ((a[bin >> 6] >> (bin & 63)) & 1, h.cells[bin].count != 0 ? 1u : 0u) << "bin " << bin;
      occupied += h.cells[bin].count != 0;
    }
    EXPECT_GT(occupied, 1u);
    EXPECT_EQ(counted, occupied);
    // With a limit: the count goes past it exactly when the occupied bins do, and stops there.
    for (const uint32_t limit : {occupied / 2, occupied - 1, occupied}) {
      std::vector<uint64_t> c(h.bins / 64, 0);
      const uint32_t s = k::scalar::mark_bins(v.data, n, shape.min, shape.bin_scale, shape.bins, c.data(), limit);
      EXPECT_EQ(s, occupied > limit ? limit + 1 : occupied) << "limit " << limit;
    }
  }
}

TEST(Kernels, RescaleAndErrorsMatchScalar) {
  const size_t rows = 13, cols = 37, n = rows * cols;
  const Values v = make_values(n, 77, 1);
  std::vector<float> factors(cols);
  for (size_t c = 0; c < cols; ++c) factors[c] = 0.5f + 0.01f * static_cast<float>(c);
  std::vector<uint8_t> a(4 * n), b(4 * n);
  k::scalar::scale_columns(v.data, rows, cols, factors.data(), a.data());
  k::scale_columns(v.data, rows, cols, factors.data(), b.data());
  EXPECT_EQ(a, b);
  // With each row's range: the same products, and the least and largest of each row's products,
  // for every width (the SIMD loop's tail included).
  for (const size_t width : {size_t{1}, size_t{3}, size_t{4}, size_t{7}, cols}) {
    std::vector<float> lo1(rows), hi1(rows), lo2(rows), hi2(rows);
    std::vector<uint8_t> c(4 * rows * width), d(4 * rows * width);
    k::scalar::scale_columns(v.data, rows, width, factors.data(), c.data(), lo1.data(), hi1.data());
    k::scale_columns(v.data, rows, width, factors.data(), d.data(), lo2.data(), hi2.data());
    EXPECT_EQ(c, d) << width;
    for (size_t r = 0; r < rows; ++r) {
      float lo = INFINITY, hi = -INFINITY;
      for (size_t j = 0; j < width; ++j) {
        const float p = k::load_f32(c.data() + 4 * (r * width + j));
        lo = std::min(lo, p), hi = std::max(hi, p);
      }
      EXPECT_EQ(lo1[r], lo) << width << " row " << r;
      EXPECT_EQ(hi1[r], hi) << width << " row " << r;
      EXPECT_EQ(lo2[r], lo) << width << " row " << r;
      EXPECT_EQ(hi2[r], hi) << width << " row " << r;
    }
  }
  k::scalar::scale(v.data, n, 1.75f, a.data());
  k::scale(v.data, n, 1.75f, b.data());
  EXPECT_EQ(a, b);

  k::ErrorSums e1, e2;
  k::scalar::error_sums(v.data, a.data(), n, e1);
  k::error_sums(v.data, a.data(), n, e2);
  EXPECT_NEAR(e1.noise, e2.noise, 1e-6 * e1.noise);
  EXPECT_NEAR(e1.signal, e2.signal, 1e-6 * e1.signal);

  // Values whose squares pass float32's range (masks at FLT_MAX) are still summed in double.
  std::vector<float> big(n, 0.0f), off(n, 0.0f);
  for (size_t i = 0; i < n; i += 3) big[i] = -3.0e38f, off[i] = -2.9e38f;
  k::ErrorSums b1, b2;
  k::scalar::error_sums(reinterpret_cast<const uint8_t*>(big.data()), reinterpret_cast<const uint8_t*>(off.data()), n, b1);
  k::error_sums(reinterpret_cast<const uint8_t*>(big.data()), reinterpret_cast<const uint8_t*>(off.data()), n, b2);
  ASSERT_TRUE(std::isfinite(b1.signal) && std::isfinite(b1.noise));
  EXPECT_NEAR(b1.signal, b2.signal, 1e-6 * b1.signal);
  EXPECT_NEAR(b1.noise, b2.noise, 1e-6 * b1.noise);
}

TEST(Palette, DeterministicLog2) {
  for (double x : {1.0, 0.5, 0.25, 1e-9, 0.1, 0.3, 0.999999, 1.0 / 3}) {
    EXPECT_NEAR(palette::det_log2(x), std::log2(x), 1e-12) << x;
  }
  EXPECT_EQ(palette::det_log2(1.0), 0.0);
  EXPECT_EQ(palette::det_log2(0.125), -3.0);
}

TEST(Palette, DesignsAreOrderedAndAutoNeverWorseThanUniform) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const size_t n = 50000;
    const Values v = make_values(n, seed, 0, seed * 20.0f);
    float lo = v.at(0), hi = v.at(0);
    bool finite = true;
    k::scalar::minmax(v.data, n, lo, hi, finite);
    for (uint32_t levels : {2u, 16u, 256u, 1000u}) {
      palette::Histogram h = palette::make_histogram(lo, hi, levels);
      k::histogram(v.data, n, h.min, h.bin_scale, h.bins, h.cells.data());
      const palette::Design u = palette::uniform(h, levels);
      for (palette::Choice c : {palette::Choice::Auto, palette::Choice::KMeans, palette::Choice::Uniform}) {
        const palette::Design d = palette::choose(h, levels, c);
        ASSERT_LE(d.levels.size(), levels);
        ASSERT_EQ(d.thresholds.size() + 1, d.levels.size());
        for (size_t j = 1; j < d.levels.size(); ++j) EXPECT_LT(d.levels[j - 1], d.levels[j]);
        for (size_t j = 1; j < d.thresholds.size(); ++j) EXPECT_LE(d.thresholds[j - 1], d.thresholds[j]);
        EXPECT_LE(d.sse, u.sse * 1.0000001) << levels;
        if (c == palette::Choice::Auto) {
          EXPECT_LE(d.entropy, u.entropy + 1e-12) << levels;
        }
      }
    }
  }
}

// Auto keeps the uniform grid unless a design of no more entropy cuts the error by 1 dB, which on
// plain weights it does not. K-means, asked for, trades entropy for accuracy: on weights whose
// range is set by rare outliers it is far more accurate, and compresses worse.
TEST(Palette, AutoKeepsTheGridKMeansTradesEntropyForAccuracy) {
  auto designs = [](uint32_t levels, float outlier, palette::Choice choice) {
    // The same values on every standard library: mt19937's raw output is specified, its
    // distributions are not (a sum of four uniforms stands in for a normal).
    const size_t n = 50000;
    std::mt19937 rng(7);
    std::vector<uint8_t> bytes(4 * n);
    for (size_t i = 0; i < n; ++i) {
      double u = 0;
      for (int j = 0; j < 4; ++j) u += rng() / 4294967296.0;
      float x = static_cast<float>(0.05 * (u - 2.0) * std::sqrt(3.0));
      if (rng() % 997 == 0) x *= outlier;
      k::store_f32(bytes.data() + 4 * i, x);
    }
    float lo = k::load_f32(bytes.data()), hi = lo;
    bool finite = true;
    k::scalar::minmax(bytes.data(), n, lo, hi, finite);
    palette::Histogram h = palette::make_histogram(lo, hi, levels);
    k::histogram(bytes.data(), n, h.min, h.bin_scale, h.bins, h.cells.data());
    return std::make_pair(palette::choose(h, levels, choice), palette::uniform(h, levels));
  };
  const auto [gaussian, gaussian_uniform] = designs(256, 1.0f, palette::Choice::Auto);
  EXPECT_EQ(gaussian.scheme, "uniform");
  EXPECT_EQ(gaussian.levels, gaussian_uniform.levels);
  const auto [outliers, outliers_uniform] = designs(16, 40.0f, palette::Choice::Auto);
  EXPECT_EQ(outliers.scheme, "uniform");
  const auto [kmeans, uniform] = designs(16, 40.0f, palette::Choice::KMeans);
  EXPECT_EQ(kmeans.scheme, "kmeans");
  EXPECT_LE(kmeans.sse, 0.8 * uniform.sse);
  EXPECT_GT(kmeans.entropy, uniform.entropy);
}

TEST(Kernels, SimdIsBuiltWhenAvailable) {
#if defined(__SSE2__) || defined(__wasm_simd128__)
#if !defined(ONNX_SHRINK_NO_SIMD)
  EXPECT_TRUE(kHaveSimd);
#endif
#endif
  SUCCEED();
}
