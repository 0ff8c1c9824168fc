// Choosing a tensor's palette from its histogram.
//
// A palette is a set of levels (ascending) and the thresholds between them: a value maps to level j
// when thresholds[j-1] <= x < thresholds[j]. Three designs:
//
//   uniform   levels evenly spaced between min and max, thresholds at midpoints (the original tool);
//   kmeans    1-D k-means (Lloyd), initialised with the uniform levels (Han et al., Deep Compression);
//   ecsq      entropy-constrained k-means (Chou, Lookabaugh & Gray 1989): thresholds move towards the
//             rarer level by lambda * (code length difference), trading a little error for fewer
//             bits. lambda = 0 is plain k-means.
//
// Gzip and brotli code a palettized tensor at close to the entropy of its level indices, so plain
// k-means, which spreads levels evenly over the values, often compresses *worse* than uniform levels
// even though it is more accurate. `choose_palette` with Scheme::Auto therefore searches lambda for
// the most accurate design whose entropy does not exceed the uniform one's; it skips the search when
// plain k-means does not beat the uniform levels clearly (and the tensor has 16 values a level or
// more), since a penalty only trades accuracy away.
//
// Everything here is double arithmetic with + - * / and a series log2, which are exact IEEE
// operations on every platform, so native and WebAssembly builds choose the same palette.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels.h"

namespace onnx_shrink::palette {

// Counts and sums of a tensor's values in `bins` equal bins over [min, max].
struct Histogram {
  float min = 0, max = 0;
  float bin_scale = 0;  // bins / (max - min)
  uint32_t bins = 0;
  std::vector<kernels::Bin> cells;  // `bins` entries: the count and sum of each bin
};
// The number of bins used for a palette of `levels` levels.
uint32_t histogram_bins(uint32_t levels);
Histogram make_histogram(float min, float max, uint32_t levels);
// The same bins without the counts and sums allocated (for kernels::mark_bins).
Histogram histogram_shape(float min, float max, uint32_t levels);

struct Design {
  std::vector<double> levels;      // ascending
  std::vector<double> thresholds;  // levels.size() - 1, ascending
  double sse = 0;                  // estimated sum of squared errors (bin resolution)
  double entropy = 0;              // bits per value of the level indices (estimated)
  std::string scheme;              // "uniform", "kmeans", "ecsq"
};

Design uniform(const Histogram& h, uint32_t levels);

enum class Choice { Auto, KMeans, Uniform };
// The design to use, with the rules described above. Uniform when nothing beats it clearly.
Design choose(const Histogram& h, uint32_t levels, Choice choice);

// log2 from + - * / only, identical on every IEEE platform. x > 0.
double det_log2(double x);

}  // namespace onnx_shrink::palette
