#include "palette_levels.h"
#include "../cold.h"
#include "slices.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

namespace onnx_shrink::palette {

namespace {

constexpr double kMargin = 0.005;  // k-means must beat uniform by 0.5 % of estimated error
// In auto, a design replaces the uniform grid only if it cuts the error by 20 % (1 dB). At 8 bits
// an entropy-coded uniform grid is within about 0.25 dB of the best scalar quantizer of the same
// entropy (Gish and Pierce), and on the corpus models the designs gained 0.0 to 0.9 dB per tensor:
// within the noise of the output error, while the uniform grid's regular values compressed better
// (silero's STFT basis: brotli 16 % larger with a design) and kept seed parity. Designs earn
// their place on few levels and on tensors the grid serves badly.
constexpr double kAutoMargin = 0.2;
constexpr int kMaxIterations = 60;
constexpr uint32_t kSkipValuesPerLevel = 16;  // the search is skipped only past this many values a level
constexpr double kConverged = 1e-5;  // levels moved less than this many steps: done

// Prefix sums over bins of counts, sums and sum_b S_b^2 / N_b. With them the squared error of a
// cell of whole bins around a level c is Q - 2 c S + c^2 N, plus the spread inside bins, which is
// the same for every design and does not take part in comparisons.
struct Prefix {
  // One entry per bin boundary, its three sums side by side: a search reads them at a cell's
  // edge, and one cache line then brings all three. An array written once (a vector would write
  // zeros first, a pass over 1.5 MB per tensor).
  struct Entry {
    uint64_t n;
    double s, q;
  };
  std::unique_ptr<Entry[]> at;
  uint32_t bins;
  explicit Prefix(const Histogram& h) : at(new Entry[h.bins + 1]), bins(h.bins) {
    at[0] = {0, 0, 0};
    for (uint32_t b = 0; b < h.bins; ++b) {
      const uint64_t c = h.cells[b].count;
      const double sum = h.cells[b].sum;
      at[b + 1] = {at[b].n + c, at[b].s + sum, at[b].q + (c ? sum * sum / static_cast<double>(c) : 0.0)};
    }
  }
  uint64_t total() const { return at[bins].n; }
};

// Number of bins whose centre lies below t: the cells of a design are runs of whole bins.
uint32_t split(const Histogram& h, double t) {
  const double k = (t - static_cast<double>(h.min)) * static_cast<double>(h.bin_scale) - 0.5;
  if (!(k > 0)) return 0;
  if (k >= static_cast<double>(h.bins)) return h.bins;
  return static_cast<uint32_t>(std::ceil(k));
}

struct Cells {
  std::vector<uint64_t> n;
  std::vector<double> s, q;
};

// The cells of `thresholds` into `c` (its vectors reused from call to call: the search calls this
// thousands of times a tensor).
void assign(const Histogram& h, const Prefix& p, const std::vector<double>& thresholds, Cells& c) {
  const size_t levels = thresholds.size() + 1;
  c.n.resize(levels);  // every entry is set below
  c.s.resize(levels);
  c.q.resize(levels);
  uint32_t from = 0;
  for (size_t j = 0; j < levels; ++j) {
    uint32_t to = j + 1 < levels ? split(h, thresholds[j]) : h.bins;
    if (to < from) to = from;
    const Prefix::Entry &high = p.at[to], &low = p.at[from];
    c.n[j] = high.n - low.n;
    c.s[j] = high.s - low.s;
    c.q[j] = high.q - low.q;
    from = to;
  }
}

void evaluate(const Histogram& h, const Prefix& p, Design& d) {
  Cells c;
  assign(h, p, d.thresholds, c);
  const double total = static_cast<double>(p.total());
  d.sse = 0;
  d.entropy = 0;
  for (size_t j = 0; j < d.levels.size(); ++j) {
    if (!c.n[j]) continue;
    const double v = d.levels[j];
    d.sse += c.q[j] - 2 * v * c.s[j] + v * v * static_cast<double>(c.n[j]);
    const double pj = static_cast<double>(c.n[j]) / total;
    d.entropy -= pj * det_log2(pj);
  }
  if (d.sse < 0) d.sse = 0;  // rounding of the prefix differences
}

std::vector<double> midpoints(const std::vector<double>& levels) {
  std::vector<double> t(levels.size() > 0 ? levels.size() - 1 : 0);
  for (size_t j = 0; j + 1 < levels.size(); ++j) t[j] = 0.5 * (levels[j] + levels[j + 1]);
  return t;
}

double intra_bin_error(const Histogram& h, const Prefix& p) {
  const double w = 1.0 / static_cast<double>(h.bin_scale);
  return static_cast<double>(p.total()) * w * w / 12.0;
}

// -log2(n / total), the code length of a cell of n values, remembered per histogram: the search
// over lambda runs the Lloyd iterations dozens of times on cells whose counts mostly repeat, and
// the logarithm (a series, for the same bits in every build) was most of their time. A slot holds
// the last count that hashed to it; the values are the function's own, so nothing changes.
class CodeLengths {
 public:
  explicit CodeLengths(uint64_t total) : total_(static_cast<double>(total)), slots_(size_t{1} << kBits) {}
  double of(uint64_t n) {
    Slot& s = slots_[static_cast<size_t>((n * 0x9E3779B97F4A7C15ull) >> (64 - kBits))];
    if (s.count != n + 1) s.count = n + 1, s.length = -det_log2(static_cast<double>(n) / total_);
    return s.length;
  }

 private:
  static constexpr int kBits = 12;
  struct Slot {
    uint64_t count = 0;  // the count held, plus one (0: none)
    double length = 0;
  };
  double total_;
  std::vector<Slot> slots_;
};

// Thresholds between neighbouring levels, shifted towards the level with the longer code, and
// never below the one before. (The one before is kept in a register: read back from the array,
// it made a chain of store and load through the whole loop.)
void set_thresholds(const std::vector<double>& levels, const std::vector<double>& lengths, double lambda,
                    std::vector<double>& thresholds) {
  const size_t count = levels.empty() ? 0 : levels.size() - 1;
  thresholds.resize(count);  // every entry is set below
  double before = -HUGE_VAL;
  for (size_t j = 0; j < count; ++j) {
    double t = 0.5 * (levels[j] + levels[j + 1]);
    if (lambda > 0) t += lambda * (lengths[j + 1] - lengths[j]) / (2 * (levels[j + 1] - levels[j]));
    if (t < before) t = before;
    thresholds[j] = before = t;
  }
}

// Lloyd iterations with an entropy penalty, from levels evenly spaced between min and max. (Every
// run starts afresh: a strong penalty removes levels, which a run started from it cannot regain.)
Design run_ecsq(const Histogram& h, const Prefix& p, uint32_t count, double lambda, CodeLengths& code_length) {
  const double lo = h.min, hi = h.max;
  const double step = count > 1 ? (hi - lo) / (count - 1) : 0;
  std::vector<double> levels(count), lengths(count, 0.0);
  for (uint32_t j = 0; j < count; ++j) levels[j] = lo + step * j;
  std::vector<double> thresholds, next, next_lengths;  // reused from iteration to iteration
  Cells c;
  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    // Thresholds between neighbours, shifted towards the level with the longer code.
    set_thresholds(levels, lengths, lambda, thresholds);
    assign(h, p, thresholds, c);
    // The cell holding 0 keeps the level 0 exactly: zero weights (pruned channels, padding) must
    // stay zero, or dead channels come alive. A centroid is never exactly 0.
    size_t zero_cell = levels.size();
    if (lo < 0 && hi > 0) {
      zero_cell = 0;
      while (zero_cell < thresholds.size() && thresholds[zero_cell] <= 0) ++zero_cell;
    }
    // New levels: centroids of non-empty cells; empty cells disappear.
    // (Written by index into arrays sized first: push_back's checks kept `moved` in memory.)
    next.resize(levels.size());
    next_lengths.resize(levels.size());
    size_t kept = 0;
    double moved = 0;
    for (size_t j = 0; j < levels.size(); ++j) {
      if (!c.n[j]) continue;
      const double centroid = j == zero_cell ? 0.0 : c.s[j] / static_cast<double>(c.n[j]);
      moved = std::max(moved, std::fabs(centroid - levels[j]));
      next[kept] = centroid;
      next_lengths[kept++] = code_length.of(c.n[j]);
    }
    next.resize(kept);
    next_lengths.resize(kept);
    const bool same_count = kept == levels.size();
    levels.swap(next);
    lengths.swap(next_lengths);
    if (levels.size() < 2) break;
    if (same_count && moved <= step * kConverged) break;
  }
  Design d;
  d.levels = levels;
  set_thresholds(levels, lengths, lambda, d.thresholds);
  d.scheme = lambda > 0 ? "ecsq" : "kmeans";
  evaluate(h, p, d);
  return d;
}

}  // namespace

ONNX_SHRINK_NOINLINE double det_log2(double x) {
  int e = 0;
  double m;  // x = m 2^e, m in [0.5, 1): frexp's result, read from the bits when x is normal
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const uint64_t exponent = bits >> 52;  // sign bit included: only positive normal x take this way
  if (exponent - 1 < 0x7FE) {
    e = static_cast<int>(exponent) - 1022;
    bits = (bits & 0x000FFFFFFFFFFFFFull) | (uint64_t{1022} << 52);
    std::memcpy(&m, &bits, sizeof m);
  } else {
    m = std::frexp(x, &e);
  }
  if (m < 0.70710678118654752) m *= 2, e -= 1;  // m in [0.707, 1.414): exact 0 for powers of two
  // ln m = 2 atanh z with z = (m - 1) / (m + 1), |z| < 0.172: the series converges fast.
  const double z = (m - 1) / (m + 1), z2 = z * z;
  double term = z, sum = 0;
  for (int k = 1; k < 24; k += 2) {  // |z| < 0.172: 12 terms reach double precision
    sum += term / k;
    term *= z2;
  }
  return static_cast<double>(e) + 2 * sum / 0.69314718055994530942;
}

uint32_t histogram_bins(uint32_t levels) {
  uint32_t bins = 65536;
  while (bins < 16u * levels && bins < (1u << 22)) bins <<= 1;
  return bins;
}

ONNX_SHRINK_COLD Histogram make_histogram(float min, float max, uint32_t levels) {
  Histogram h = histogram_shape(min, max, levels);
  h.cells = std::vector<kernels::Bin>(h.bins);  // zeros
  return h;
}

ONNX_SHRINK_COLD Histogram histogram_shape(float min, float max, uint32_t levels) {
  Histogram h;
  h.min = min;
  h.max = max;
  h.bins = histogram_bins(levels);
  // A range too small to split into bins (subnormal) is treated as a single value.
  const double scale = max > min ? static_cast<double>(h.bins) / (static_cast<double>(max) - min) : 0.0;
  h.bin_scale = scale < 1e37 ? static_cast<float>(scale) : 0.0f;
  if (h.bin_scale == 0.0f) h.max = h.min;
  return h;
}

// Levels at the centroids of their cells shrink the tensor: sum q^2 = sum x q = sum x^2 - error, so
// every layer's gain drops a little and the drops compound through a network (and through the
// steps of a recurrent one). Scaling the levels by sum x^2 / sum x q makes the error uncorrelated
// with the values, as rounding to a uniform grid is, at a negligible cost in squared error.
ONNX_SHRINK_COLD static void remove_gain_bias(const Histogram& h, const Prefix& p, Design& d) {
  Cells c;
  assign(h, p, d.thresholds, c);
  double xq = 0, q2 = 0, x2 = 0;
  for (size_t j = 0; j < d.levels.size(); ++j) {
    xq += d.levels[j] * c.s[j];
    q2 += d.levels[j] * d.levels[j] * static_cast<double>(c.n[j]);
    x2 += c.q[j];  // between-bin part of sum x^2; the rest is the same for x q up to bin width
  }
  x2 += intra_bin_error(h, p);
  if (!(xq > 0) || !(q2 > 0)) return;
  const double gain = x2 / xq;
  if (!(gain > 0.5 && gain < 2.0)) return;
  for (double& v : d.levels) v *= gain;
  evaluate(h, p, d);
}

// The uniform design, evaluated with prefix sums already made.
ONNX_SHRINK_COLD static Design uniform_with(const Histogram& h, const Prefix& p, uint32_t levels) {
  Design d;
  d.scheme = "uniform";
  // The original tool's grid: multiples of scale = range / (levels - 1), starting at round(min / scale).
  const double range = static_cast<double>(h.max) - h.min;
  const double scale = levels > 1 ? range / (levels - 1) : 0;
  const double first = scale > 0 ? std::nearbyint(h.min / scale) : 0;
  d.levels.resize(levels);
  for (uint32_t j = 0; j < levels; ++j) d.levels[j] = (first + j) * scale;
  d.thresholds = midpoints(d.levels);
  evaluate(h, p, d);
  return d;
}

ONNX_SHRINK_COLD Design uniform(const Histogram& h, uint32_t levels) { return uniform_with(h, Prefix(h), levels); }

ONNX_SHRINK_COLD Design choose(const Histogram& h, uint32_t levels, Choice choice) {
  const Prefix p(h);
  Design u = uniform_with(h, p, levels);
  if (choice == Choice::Uniform || !(h.max > h.min) || levels < 2) return u;
  const double intra = intra_bin_error(h, p);
  const double margin = choice == Choice::KMeans ? kMargin : kAutoMargin;
  auto beats_uniform = [&](const Design& d) { return d.sse + intra <= (u.sse + intra) * (1 - margin); };

  CodeLengths lengths(p.total());
  Design k = run_ecsq(h, p, levels, 0.0, lengths);
  remove_gain_bias(h, p, k);
  if (choice == Choice::KMeans) return beats_uniform(k) ? k : u;
  // A penalty on entropy trades accuracy for it: a design made with one is no more accurate than
  // plain k-means, once the cells hold many values each. So when plain k-means does not beat the
  // grid, the search is skipped (on the corpus and bench models, at 4 to 256 levels, it had never
  // found a design that did; weights drawn evenly, as in many conv nets, are that case at 256
  // levels). With a few values a level, Lloyd's iterations stop at poorer designs, which a penalty
  // can escape: a tensor of 256 values at 256 levels got 1.4 dB from the search.
  if (p.total() >= uint64_t{kSkipValuesPerLevel} * levels && !beats_uniform(k)) return u;
  if (k.entropy <= u.entropy && beats_uniform(k)) return k;

  // The smallest lambda whose design uses no more entropy than uniform levels.
  const double step = (static_cast<double>(h.max) - h.min) / (levels - 1);
  double lo = 0, hi = step * step;
  Design feasible = run_ecsq(h, p, levels, hi, lengths);
  for (int i = 0; i < 24 && feasible.entropy > u.entropy; ++i) {
    lo = hi;
    hi *= 4;
    feasible = run_ecsq(h, p, levels, hi, lengths);
  }
  if (feasible.entropy > u.entropy) return u;
  for (int i = 0; i < 10; ++i) {
    const double mid = lo > 0 ? std::sqrt(lo * hi) : 0.5 * hi;
    Design d = run_ecsq(h, p, levels, mid, lengths);
    if (d.entropy <= u.entropy) {
      hi = mid;
      feasible = std::move(d);
    } else {
      lo = mid;
    }
  }
  remove_gain_bias(h, p, feasible);
  return beats_uniform(feasible) ? feasible : u;
}

}  // namespace onnx_shrink::palette
