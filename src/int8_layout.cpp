#include "int8_layout.h"

#include <algorithm>
#include <cmath>

#include "byte_buffer.h"
#include "code_format.h"
#include "cold.h"
#include "kernels/kernels.h"
#include "kernels/palette_levels.h"

namespace onnx_shrink {

namespace {

constexpr uint64_t kSampleValues = 16384;      // values looked at per candidate when choosing
constexpr uint64_t kShortRunColumns = 1 << 20;  // short runs along an axis go as rows of at most this many columns
constexpr double kCodebookMargin = 0.25118864315;  // 10^(-6/10): a codebook must be 6 dB better
constexpr double kBytesPerDb = 0.021;          // an extra bit per value buys 6 dB for 12.5 % more bytes

uint64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  uint64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= static_cast<uint64_t>(dims[d]);
  return n;
}

ONNX_SHRINK_COLD std::vector<int64_t> ones_except(size_t rank, int64_t axis, int64_t value) {
  std::vector<int64_t> d(rank, 1);
  d[static_cast<size_t>(axis)] = value;
  return d;
}

// m^(power/4) with exact IEEE operations only (sqrt), so every build computes the same factors.
float power_of(float m, int power) {
  if (!(m > 0)) return 1.0f;
  const float r2 = std::sqrt(m), r4 = std::sqrt(r2);
  switch (power) {
    case 1: return r4;
    case 2: return r2;
    case 3: return r2 * r4;
    default: return m;
  }
}

// Expected squared error of uniform 8-bit codes (the table's first format: every estimate here is
// for 8 bits) over [min(lo, 0), max(hi, 0)] for `count` values.
double uniform_noise(float lo, float hi, double count) {
  const double l = lo < 0 ? lo : 0, h = hi > 0 ? hi : 0;
  const double step = (h - l) / format_with_bits(8)->steps();
  return count * step * step / 12.0;
}

}  // namespace

uint64_t element_count(const std::vector<int64_t>& dims) { return product(dims, 0, dims.size()); }

ONNX_SHRINK_COLD AxisMaxima axis_maxima(const uint8_t* x, const std::vector<int64_t>& dims, int64_t axis) {
  // One per slice whatever their size (uniform_layout gives slices of under 8 values one scale for
  // the whole tensor: factors made from that were one, where a slice's worth were read).
  const AxisView v = view_around(dims, axis);
  // Short runs (a conv weight's 3x3 kernels along its input channels) go as columns too: the
  // tensor as rows of extent x inner columns, the columns' ranges in one kernel call, each run's
  // columns joined after; not a loop over every run. The same maxima.
  const bool short_runs = v.inner > 1 && v.inner < 16 && v.extent * v.inner <= kShortRunColumns;
  const uint64_t width = short_runs ? v.inner : 1;
  Int8Layout l;
  l.kind = v.inner > 1 && !short_runs ? Int8Layout::Rows : Int8Layout::Columns;
  l.outer = v.outer;
  l.channels = l.groups = v.extent * width;
  l.inner = v.inner / width;
  const uint64_t n = product(dims, 0, dims.size());
  AxisMaxima m;
  m.axis = axis;
  m.absmax.assign(v.extent, 0.0f);
  if (n == 0) return m;
  std::vector<float> lo, hi;
  group_ranges(l, x, n, lo, hi, &m.finite);
  // (The minimum of the groups' minima is the tensor's, and so on: the values of one pass.)
  m.lo = lo[0], m.hi = hi[0];
  for (size_t c = 0; c < lo.size(); ++c) {
    m.absmax[c / width] = std::max(m.absmax[c / width], std::max(std::fabs(lo[c]), std::fabs(hi[c])));
    m.lo = std::min(m.lo, lo[c]);
    m.hi = std::max(m.hi, hi[c]);
  }
  return m;
}

namespace {

// Per-slice absolute maxima along `axis`.
std::vector<float> axis_absmax(const uint8_t* x, const std::vector<int64_t>& dims, int64_t axis) {
  return axis_maxima(x, dims, axis).absmax;
}

// The slices along `axis` looked at when estimating a candidate: about kSampleValues values, in
// runs of up to 16 consecutive slices spread evenly (consecutive columns share cache lines).
ONNX_SHRINK_COLD std::vector<uint64_t> sample_slices(const AxisView& v) {
  const uint64_t slice = v.outer * v.inner;
  uint64_t count = slice ? (kSampleValues + slice - 1) / slice : v.extent;
  count = std::min<uint64_t>(std::max<uint64_t>(count, 4), v.extent);
  const uint64_t run = std::min<uint64_t>(16, count), runs = (count + run - 1) / run;
  std::vector<uint64_t> out;
  for (uint64_t r = 0; r < runs; ++r) {
    const uint64_t start = r * (v.extent - run) / std::max<uint64_t>(runs - 1, 1);
    for (uint64_t k = 0; k < run && out.size() < count; ++k) {
      if (out.empty() || start + k > out.back()) out.push_back(start + k);
    }
  }
  return out;
}

// The step between the runs of a slice that a sample reads: 1 (every run) unless the sampled slices
// hold more than kSampleRunsAbove values, as the few slices of a short axis do (the kernel height
// of a conv weight [Cout, Cin, 3, 3]: every value, read in runs of 3), then about kSampleValues.
constexpr uint64_t kSampleRunsAbove = 8 * kSampleValues;
uint64_t run_step(const AxisView& v, uint64_t slices) {
  const uint64_t values = slices * v.outer * v.inner;
  if (values <= kSampleRunsAbove) return 1;
  return std::max<uint64_t>(1, std::min<uint64_t>(v.outer, values / kSampleValues));
}

// Visits the values of slices along `a` with each value's index along b: visit(value, index) for
// every value of slice i (in every `step`-th run). A slice is walked as `outer` contiguous runs of
// `inner` values; where b lies inside a run, its index at each position of a run is worked out
// once, for every slice.
class SliceWalk {
 public:
  SliceWalk(const std::vector<int64_t>& dims, int64_t a, int64_t b)
      : va_(view_around(dims, a)), b_inside_(b > a), same_(b == a),
        stride_b_(product(dims, static_cast<size_t>(b) + 1, dims.size())), dim_b_(static_cast<uint64_t>(dims[static_cast<size_t>(b)])) {
    if (b_inside_) {
      pattern_.resize(va_.inner);
      for (uint64_t k = 0; k < va_.inner; ++k) pattern_[k] = (k / stride_b_) % dim_b_;
    }
  }
  template <typename Visit>
  void slice(const uint8_t* x, uint64_t i, Visit visit, uint64_t step = 1) const {
    for (uint64_t o = 0; o < va_.outer; o += step) {
      const uint64_t base = (o * va_.extent + i) * va_.inner;
      const uint8_t* run = x + 4 * base;
      if (b_inside_) {
        for (uint64_t k = 0; k < va_.inner; ++k) visit(kernels::load_f32(run + 4 * k), pattern_[k]);
      } else {
        const uint64_t j = same_ ? i : (base / stride_b_) % dim_b_;  // the same all along the run
        for (uint64_t k = 0; k < va_.inner; ++k) visit(kernels::load_f32(run + 4 * k), j);
      }
    }
  }

 private:
  AxisView va_;
  bool b_inside_, same_;
  uint64_t stride_b_, dim_b_;
  std::vector<uint64_t> pattern_;
};

// Values of slice i's sample: (outer + step - 1) / step runs of inner values.
uint64_t slice_sample_size(const AxisView& va, uint64_t step) { return (va.outer + step - 1) / step * va.inner; }

// Writes slice i's values along `a` (in every `step`-th run) to `out`, divided by the fourth root
// of their largest magnitude; returns that root. The slice is read once (its runs are strided
// across the tensor), the largest magnitude and the division then go over the copy.
float normalised_slice(const uint8_t* x, const AxisView& va, uint64_t i, uint64_t step, float* out) {
  float* const first = out;
  for (uint64_t o = 0; o < va.outer; o += step) {
    const uint8_t* run = x + 4 * ((o * va.extent + i) * va.inner);
    for (uint64_t k = 0; k < va.inner; ++k) *out++ = kernels::load_f32(run + 4 * k);
  }
  // The largest magnitude by the SIMD kernel (a loop of max_f32 waits on each previous max): the
  // same in any order, as the values are finite (checked when read).
  const kernels::Range r = kernels::range_of(reinterpret_cast<const uint8_t*>(first), static_cast<size_t>(out - first));
  const float largest = out > first ? std::max(std::fabs(r.lo), std::fabs(r.hi)) : 0.0f;
  const float f = power_of(largest, 4), inverse = 1.0f / f;
  for (float* v = first; v < out; ++v) *v *= inverse;
  return f;
}

// Separable scales: values divided by a factor along b, then uniform per slice along a (b == a with
// factors of 1: plain per-slice codes). Adds the sum of x^2 over the tensor to `signal` when given.
ONNX_SHRINK_COLD double separable_noise(const uint8_t* x, const std::vector<int64_t>& dims, int64_t a, int64_t b,
                                        const std::vector<float>& factors, double* signal = nullptr) {
  const AxisView va = view_around(dims, a);
  const std::vector<uint64_t> slices = sample_slices(va);
  std::vector<float> inverse(factors.size());
  for (size_t j = 0; j < factors.size(); ++j) inverse[j] = 1.0f / factors[j];
  double noise = 0, sum = 0;
  const SliceWalk walk(dims, a, b);
  for (uint64_t i : slices) {
    // Locals the compiler keeps in registers (the same additions in the same order).
    float lo = 0, hi = 0;
    double weight = 0, total = sum;
    walk.slice(x, i, [&lo, &hi, &weight, &total, f = factors.data(), inv = inverse.data()](float v, uint64_t j) {
      const float u = v * inv[j];
      lo = std::min(lo, u);
      hi = std::max(hi, u);
      weight += double(f[j]) * f[j];
      total += double(v) * v;
    });
    sum = total;
    noise += uniform_noise(lo, hi, 1.0) * weight;
  }
  if (signal) *signal += sum * double(va.extent) / double(slices.size());
  return noise * double(va.extent) / double(slices.size());
}

// A codebook: values divided by their slice's max along a, one k-means table of 256 levels. Only
// the sampled slices (or runs of them) are read; their factors come from the values read. Returns the estimated
// squared error, or infinity when the sample has too many distinct values for a codebook to win.
ONNX_SHRINK_COLD double codebook_noise(const uint8_t* x, const std::vector<int64_t>& dims, int64_t a) {
  const AxisView va = view_around(dims, a);
  const std::vector<uint64_t> slices = sample_slices(va);
  const uint64_t step = run_step(va, slices.size());
  // The sample in one array sized once (a vector grown slice by slice wrote zeros over it first).
  const uint64_t per_slice = slice_sample_size(va, step);
  Scratch<float> u;
  u.resize(static_cast<size_t>(slices.size() * per_slice));
  double weight = 0;  // sum over the sampled slices' values of their factor squared
  for (size_t s = 0; s < slices.size(); ++s) {
    const float f = normalised_slice(x, va, slices[s], step, u.data() + s * per_slice);
    weight += double(f) * f * double(va.outer * va.inner);  // the whole slice's
  }
  const kernels::Range r = kernels::range_of(reinterpret_cast<const uint8_t*>(u.data()), u.size());
  const float lo = r.lo, hi = r.hi;
  if (!(hi > lo)) return 0;
  // A codebook only wins by its margin on values with few distinct magnitudes; when the sample
  // spreads over many bins it cannot, and k-means is not worth running. Most tensors stop here, so
  // the bins are counted in a bitmap (8 KB) before the histogram (1 MB, zeroed) is made at all:
  // allocating that for every tensor and axis was a fifth of the native engine's time. The count
  // stops at the 4097th bin: most samples get there within their first few thousand values.
  const palette::Histogram shape = palette::histogram_shape(lo, hi, 256);
  std::vector<uint64_t> marked((shape.bins + 63) / 64, 0);
  const uint8_t* sample = reinterpret_cast<const uint8_t*>(u.data());
  if (kernels::scalar::mark_bins(sample, u.size(), shape.min, shape.bin_scale, shape.bins, marked.data(), 4096) > 4096) return INFINITY;
  palette::Histogram h = palette::make_histogram(lo, hi, 256);
  kernels::histogram(sample, u.size(), h.min, h.bin_scale, h.bins, h.cells.data());
  const palette::Design d = palette::choose(h, 256, palette::Choice::KMeans);
  const double bin = (hi - lo) / double(h.bins);
  const double per_value = (d.sse + double(u.size()) * bin * bin / 12.0) / double(u.size());
  return per_value * weight * double(va.extent) / double(slices.size());
}

// Bytes of everything stored besides the codes (scales, offsets, factors, table), Fold form.
ONNX_SHRINK_COLD double parameter_bytes(const Int8Layout& l) {
  if (l.codebook) return 4.0 * double(l.factor_count()) + 4.0 * 256;
  return 8.0 * double(l.groups) + 4.0 * double(l.factor_count());
}

}  // namespace

ONNX_SHRINK_COLD AxisView view_around(const std::vector<int64_t>& dims, int64_t axis) {
  AxisView v;
  const size_t a = static_cast<size_t>(axis);
  v.outer = product(dims, 0, a);
  v.extent = static_cast<uint64_t>(dims[a]);
  v.inner = product(dims, a + 1, dims.size());
  return v;
}

ONNX_SHRINK_COLD std::string Int8Layout::scheme() const {
  if (seed) return "tensor";
  if (codebook) return "codebook";
  if (factor_axis >= 0) return "separable";
  if (kind == RowBlocks || kind == ColumnBlocks) return "block";
  if (kind == Tensor) return "tensor";
  return "channel";
}

ONNX_SHRINK_COLD uint64_t Int8Layout::factor_count() const {
  if (!codebook && factor_axis < 0) return 0;
  uint64_t n = 1;
  for (int64_t d : factor_dims) n *= static_cast<uint64_t>(d);
  return n;
}

ONNX_SHRINK_COLD Int8Layout uniform_layout(const std::vector<int64_t>& dims, int64_t axis, uint32_t block, Form form, std::string& note) {
  Int8Layout l;
  const size_t rank = dims.size();
  const uint64_t n = product(dims, 0, rank);
  l.code_dims = dims;
  if (rank < 2 || axis < 0 || axis >= static_cast<int64_t>(rank)) return l;  // a vector: one scale
  const AxisView v = view_around(dims, axis);
  if (v.extent < 2 || n / v.extent < 8) return l;  // one channel, or scales costing more than codes
  l.axis = axis;
  l.outer = v.outer;
  l.channels = v.extent;
  l.inner = v.inner;
  const bool fold = form == Form::Fold;
  if (block > 0) {
    if (l.inner > 1 && l.inner % block == 0) {
      const int64_t rows = static_cast<int64_t>(l.outer * l.channels), nb = static_cast<int64_t>(l.inner / block);
      l.kind = Int8Layout::RowBlocks;
      l.block = block;
      l.groups = static_cast<uint64_t>(rows * nb);
      l.code_dims = fold ? std::vector<int64_t>{rows, nb, static_cast<int64_t>(block)} : std::vector<int64_t>{rows, static_cast<int64_t>(l.inner)};
      l.scale_dims = fold ? std::vector<int64_t>{rows, nb, 1} : std::vector<int64_t>{rows, nb};
      return l;
    }
    if (l.inner == 1 && l.outer % block == 0) {
      const int64_t nb = static_cast<int64_t>(l.outer / block), c = static_cast<int64_t>(l.channels);
      l.kind = Int8Layout::ColumnBlocks;
      l.block = block;
      l.groups = static_cast<uint64_t>(nb * c);
      l.code_dims = fold ? std::vector<int64_t>{nb, static_cast<int64_t>(block), c} : std::vector<int64_t>{static_cast<int64_t>(l.outer), c};
      l.scale_dims = fold ? std::vector<int64_t>{nb, 1, c} : std::vector<int64_t>{nb, c};
      return l;
    }
    note = "blocks of " + std::to_string(block) + " do not divide its reduction axis; per channel instead";
  }
  l.kind = l.inner > 1 ? Int8Layout::Rows : Int8Layout::Columns;
  l.groups = l.channels;
  l.scale_dims = fold ? ones_except(rank, axis, static_cast<int64_t>(l.channels)) : std::vector<int64_t>{static_cast<int64_t>(l.channels)};
  return l;
}

ONNX_SHRINK_COLD double estimate_sqnr_db(const Int8Layout& l, const uint8_t* x, const std::vector<int64_t>& dims) {
  // Per slice along the channel axis (blocks counted as whole slices: an overestimate of their noise
  // that keeps the order), from a sample.
  double signal = 0, noise = 0;
  {
    // The factors from the sampled slices alone (a pass over the whole tensor would cost as much as
    // coding it: an estimate for ordering does not need it).
    const int64_t b = l.factor_axis >= 0 ? l.factor_axis : l.axis;
    std::vector<float> factors(static_cast<size_t>(dims[static_cast<size_t>(b)]), 1.0f);
    if (l.factor_axis >= 0) {
      std::fill(factors.begin(), factors.end(), 0.0f);
      const SliceWalk walk(dims, l.axis, b);
      for (uint64_t i : sample_slices(view_around(dims, l.axis))) {
        walk.slice(x, i, [f = factors.data()](float v, uint64_t j) { f[j] = std::max(f[j], std::fabs(v)); });
      }
      for (float& f : factors) f = power_of(f, l.factor_power);
    }
    noise = separable_noise(x, dims, l.axis, b, factors, &signal);
  }
  return noise > 0 && signal > 0 ? 10.0 * std::log10(signal / noise) : INFINITY;
}

uint64_t group_of(const Int8Layout& l, uint64_t k) {
  switch (l.kind) {
    case Int8Layout::Tensor:
      return 0;
    case Int8Layout::Rows:
      return (k / l.inner) % l.channels;
    case Int8Layout::RowBlocks:
      return k / l.block;
    case Int8Layout::Columns:
      return k % l.channels;
    case Int8Layout::ColumnBlocks:
      return (k / l.channels / l.block) * l.channels + k % l.channels;
  }
  return 0;
}

ONNX_SHRINK_COLD void group_ranges(const Int8Layout& l, const uint8_t* x, uint64_t n, std::vector<float>& lo, std::vector<float>& hi, bool* all_finite) {
  lo = std::vector<float>(l.groups);  // zeros
  hi = std::vector<float>(l.groups);
  bool finite = true;
  auto run = [&](uint64_t offset, uint64_t len, size_t g, bool first) {
    if (first) lo[g] = hi[g] = kernels::load_f32(x + 4 * offset);
    kernels::minmax(x + 4 * offset, static_cast<size_t>(len), lo[g], hi[g], finite);
  };
  switch (l.kind) {
    case Int8Layout::Tensor:
      if (n) run(0, n, 0, true);
      break;
    case Int8Layout::Rows:
      for (uint64_t r = 0; r < l.outer * l.channels; ++r) run(r * l.inner, l.inner, r % l.channels, r < l.channels);
      break;
    case Int8Layout::RowBlocks:
      for (uint64_t g = 0; g < l.groups; ++g) run(g * l.block, l.block, g, true);
      break;
    case Int8Layout::Columns:
    case Int8Layout::ColumnBlocks: {
      const uint64_t c = l.channels;
      const uint64_t rows = l.kind == Int8Layout::Columns ? l.outer : l.block;
      for (uint64_t b = 0; b < l.groups / c; ++b) {
        const uint8_t* first = x + 4 * (b * rows * c);
        for (uint64_t k = 0; k < c; ++k) lo[b * c + k] = hi[b * c + k] = kernels::load_f32(first + 4 * k);
        kernels::minmax_columns(first, static_cast<size_t>(rows), static_cast<size_t>(c), &lo[b * c], &hi[b * c], finite);
      }
      break;
    }
  }
  if (all_finite) *all_finite = *all_finite && finite;
}

ONNX_SHRINK_COLD std::vector<float> layout_factors(const Int8Layout& l, const uint8_t* x, const std::vector<int64_t>& dims,
                                                   const AxisMaxima* known) {
  const int64_t axis = l.codebook ? l.axis : l.factor_axis;
  const int power = l.codebook ? 4 : l.factor_power;
  std::vector<float> m = known && known->axis == axis ? known->absmax : axis_absmax(x, dims, axis);
  for (float& f : m) f = power_of(f, power);
  return m;
}

ONNX_SHRINK_COLD void multiply_along(const uint8_t* x, const std::vector<int64_t>& dims, int64_t axis, const float* factors,
                                     uint8_t* out, RowRanges* rows) {
  const AxisView v = view_around(dims, axis);
  if (rows) rows->lo.clear(), rows->hi.clear();
  const bool short_runs = v.inner > 1 && v.inner < 16 && v.extent * v.inner <= kShortRunColumns;
  if (v.inner == 1 || short_runs) {
    // Rows of extent x inner columns, each column's factor laid out once for short runs.
    std::vector<float> columns;
    if (short_runs) {
      columns.resize(v.extent * v.inner);
      for (uint64_t c = 0; c < columns.size(); ++c) columns[c] = factors[c / v.inner];
    }
    if (rows) rows->lo.resize(v.outer), rows->hi.resize(v.outer);
    kernels::scale_columns(x, static_cast<size_t>(v.outer), static_cast<size_t>(v.extent * v.inner),
                           short_runs ? columns.data() : factors, out, rows ? rows->lo.data() : nullptr,
                           rows ? rows->hi.data() : nullptr);
    return;
  }
  for (uint64_t o = 0; o < v.outer; ++o) {
    for (uint64_t i = 0; i < v.extent; ++i) {
      const uint64_t at = 4 * ((o * v.extent + i) * v.inner);
      kernels::scale(x + at, static_cast<size_t>(v.inner), factors[i], out + at);
    }
  }
}

ONNX_SHRINK_COLD Int8Layout choose_int8_layout(const uint8_t* x, const std::vector<int64_t>& dims, int64_t out_axis, int64_t in_axis,
                                               Form form, bool search, bool codebooks, const AxisMaxima* known) {
  std::string note;
  const size_t rank = dims.size();
  const uint64_t n = product(dims, 0, rank);
  Int8Layout best = uniform_layout(dims, out_axis, 0, form, note);
  if (!search || form != Form::Fold || best.kind == Int8Layout::Tensor) return best;

  // Separable scales: one factor per input channel (the fourth root of its largest weight: it
  // evens out the input channels' ranges a little, as SmoothQuant balances activations and
  // weights), then codes per output channel. The exponent, measured as the output error over
  // re-roundings of the corpus models (BENCHMARKS.md): with 8-bit codes, over 32 draws, 1/4 gave a
  // median of 0.059 on PP-OCR det (1/2: 0.067; 1/8: 0.057; no factors: 0.064) and 0.0077 on silero
  // (0.0079; 0.0090; 0.0125), and did better on silero's other inputs and its 8 kHz branch; with
  // the default bits (det 10, silero 9), over 24 and 32 draws, det 0.018 against 0.028 with 1/2
  // (1/4 lower in 67 % of pairs), silero 0.0047 against 0.0046 (no difference).
  // Not where the factors would cost more than the codes (input channels of under 8 values, as in
  // a classifier's [4096, 4] weight).
  if (in_axis >= 0 && in_axis != out_axis && in_axis < static_cast<int64_t>(rank) && dims[static_cast<size_t>(in_axis)] >= 2 &&
      n / static_cast<uint64_t>(dims[static_cast<size_t>(in_axis)]) >= 8) {
    best.factor_axis = in_axis;
    best.factor_power = 1;
    best.factor_dims = ones_except(rank, in_axis, dims[static_cast<size_t>(in_axis)]);
  }

  // A codebook wins only by a wide margin (6 dB): values with few distinct magnitudes, such as a
  // Fourier basis times a window, which uniform codes cannot represent well. Most tensors fail
  // the cheap test on a sample, and the estimate of the scheme above is made only when needed.
  bool estimated = false;
  Int8Layout chosen = best;
  for (size_t a = 0; a < rank && codebooks; ++a) {
    if (dims[a] < 2) continue;
    const double noise = codebook_noise(x, dims, static_cast<int64_t>(a));
    if (!std::isfinite(noise)) continue;
    if (!estimated) {
      if (best.factor_axis >= 0) {
        const std::vector<float> factors = layout_factors(best, x, dims, known);
        best.noise = separable_noise(x, dims, out_axis, best.factor_axis, factors);
      } else {
        std::vector<float> lo, hi;
        group_ranges(best, x, n, lo, hi);
        for (size_t g = 0; g < lo.size(); ++g) best.noise += uniform_noise(lo[g], hi[g], double(n / best.groups));
      }
      estimated = true;
    }
    Int8Layout c;
    c.codebook = true;
    c.axis = static_cast<int64_t>(a);
    c.code_dims = dims;
    c.factor_dims = ones_except(rank, static_cast<int64_t>(a), dims[a]);
    c.groups = 0;
    c.noise = noise;
    const double extra = parameter_bytes(c) - parameter_bytes(best);
    const double gain_db = c.noise > 0 ? 10.0 * std::log10(best.noise / c.noise) : 99.0;
    if (extra > 0 && extra / double(n) > gain_db * kBytesPerDb) continue;
    if (c.noise < best.noise * kCodebookMargin && (!chosen.codebook || c.noise < chosen.noise)) chosen = std::move(c);
  }
  return chosen;
}

}  // namespace onnx_shrink
