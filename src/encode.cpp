#include "encode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "bias_correction.h"
#include "cold.h"
#include "int8_layout.h"
#include "kernels/kernels.h"
#include "kernels/palette_levels.h"
#include "kernels/slices.h"
#include "rounding_draw.h"
#include "saturation.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

void set_sqnr(TensorReport& report, double signal, double noise) {
  report.exact = noise <= 0;
  report.sqnr_db = noise > 0 ? (signal > 0 ? 10.0 * std::log10(signal / noise) : -INFINITY) : 0.0;
}

namespace {

void write_exact(Sink& out, const void* bytes, uint64_t size, const Payload& p) {
  if (size != p.size) throw std::logic_error("onnx-shrink: payload size mismatch");
  out.write(bytes, static_cast<size_t>(size));
}

// Level index of every value for a palette design (thresholds between levels).
ONNX_SHRINK_COLD void design_indices(const uint8_t* x, size_t n, const palette::Histogram& h, const palette::Design& d,
                                     Scratch<uint16_t>& out) {
  const size_t count = d.levels.size();
  std::vector<float> thresholds(count ? count - 1 : 0);
  for (size_t j = 0; j + 1 < count; ++j) thresholds[j] = static_cast<float>(d.thresholds[j]);
  // Where to start looking for each bin's level.
  std::vector<uint16_t> guess(h.bins);
  size_t j = 0;
  for (uint32_t b = 0; b < h.bins; ++b) {
    const double edge = static_cast<double>(h.min) + static_cast<double>(b) / static_cast<double>(h.bin_scale);
    while (j + 1 < count && d.thresholds[j] <= edge) ++j;
    guess[b] = static_cast<uint16_t>(j);
  }
  out.resize(n);
  kernels::palette_indices(x, n, h.min, h.bin_scale, h.bins, guess.data(), thresholds.data(), static_cast<uint32_t>(count),
                           out.data());
}

// The parameters of one uniform layout's groups (values in the layout's own domain), from `rows`
// when those are its groups' ranges (rows of the whole channel axis; the same values either way).
ONNX_SHRINK_COLD std::vector<kernels::Int8Params> uniform_params(const Int8Layout& l, const uint8_t* x, uint64_t n,
                                                                 const RowRanges* rows = nullptr) {
  std::vector<float> lo, hi;
  if (rows && l.kind == Int8Layout::Rows && l.outer == 1 && rows->lo.size() == l.groups) {
    lo = rows->lo, hi = rows->hi;
  } else {
    group_ranges(l, x, n, lo, hi);
  }
  std::vector<kernels::Int8Params> params(l.groups);
  for (uint64_t g = 0; g < l.groups; ++g) params[g] = kernels::int8_params(lo[g], hi[g], l.low_bits, l.code_bits);
  return params;
}

// Codes of a layout whose groups are runs, by kernels::quantize: for a draw, which compares its
// error with theirs as quantize sums it.
ONNX_SHRINK_COLD void quantized_runs(const Int8Layout& l, const uint8_t* x, uint64_t n, int8_t* out,
                                     const std::vector<kernels::Int8Params>& params, kernels::ErrorSums& e, const float* row_weights,
                                     uint8_t* low) {
  auto low_at = [&](uint64_t k) { return low ? low + k : nullptr; };
  if (l.kind == Int8Layout::Tensor) return kernels::quantize(x, static_cast<size_t>(n), params[0], out, e, low);
  if (l.kind == Int8Layout::RowBlocks) {
    for (uint64_t g = 0; g < l.groups; ++g) {
      kernels::quantize(x + 4 * g * l.block, l.block, params[g], out + g * l.block, e, low_at(g * l.block));
    }
    return;
  }
  for (uint64_t r = 0; r < l.outer * l.channels; ++r) {  // Rows
    kernels::ErrorSums row;
    kernels::quantize(x + 4 * r * l.inner, static_cast<size_t>(l.inner), params[r % l.channels], out + r * l.inner, row,
                      low_at(r * l.inner));
    const double w = row_weights ? row_weights[r] : 1.0;
    e.signal += w * row.signal;
    e.noise += w * row.noise;
  }
}

// Codes of one uniform layout for a draw (code_groups otherwise; the WebAssembly module has no
// draws and no copy of this), values in the layout's own domain, and their parameters.
// `row_weights` (when given, per row of the layout) weight the error terms of each row. `low` (when
// the layout has low bits) receives each code's low bits, one per value.
[[maybe_unused]] ONNX_SHRINK_COLD void uniform_codes(const Int8Layout& l, const uint8_t* x, uint64_t n, int8_t* out,
                                                     std::vector<kernels::Int8Params>& params, kernels::ErrorSums& e,
                                                     const float* row_weights, uint8_t* low) {
  params = uniform_params(l, x, n);
  if (groups_are_runs(l)) {
    quantized_runs(l, x, n, out, params, e, row_weights, low);
  } else {
    const uint64_t c = l.channels;
    const uint64_t rows = l.kind == Int8Layout::Columns ? l.outer : l.block;
    for (uint64_t b = 0; b < l.groups / c; ++b) {
      kernels::quantize_columns(x + 4 * b * rows * c, static_cast<size_t>(rows), static_cast<size_t>(c), &params[b * c],
                                out + b * rows * c, e, row_weights ? row_weights + b * rows : nullptr, low ? low + b * rows * c : nullptr);
    }
  }
  if (kRoundingDraws && l.draw) redraw(l, x, n, out, params, e, row_weights, low);
}

// The order-0 entropy of `n` code bytes, in bytes.
uint64_t entropy_bytes(const int8_t* codes, uint64_t n) {
  // Four tables, value k counted in table k mod 4: codes crowd a few values, and one table makes
  // each count wait for the previous store to the same count. A slice at a time (kernels/slices.h:
  // a call of its own, which WebAssembly's optimizing tier can replace within the first tensor),
  // each slice's tables then added into `counts`.
  uint64_t counts[256] = {};
  const uint8_t* c = reinterpret_cast<const uint8_t*>(codes);
  kernels::for_slices(static_cast<size_t>(n), kernels::kSlice * 4, [&](size_t begin, size_t end) {
    uint32_t tables[4][256] = {};
    size_t k = begin;
    for (; k + 4 <= end; k += 4) ++tables[0][c[k]], ++tables[1][c[k + 1]], ++tables[2][c[k + 2]], ++tables[3][c[k + 3]];
    for (; k < end; ++k) ++tables[0][c[k]];
    for (size_t v = 0; v < 256; ++v) counts[v] += uint64_t{tables[0][v]} + tables[1][v] + tables[2][v] + tables[3][v];
  });
  double digits = 0;  // decimal digits (log10, which the module has already, rather than log2)
  for (const uint64_t c : counts) {
    if (c) digits -= double(c) * std::log10(double(c) / double(n));
  }
  return static_cast<uint64_t>(digits / (8 * 0.30102999566398120) + 0.5);
}

// The low bits of every code, packed 8 / bits to a byte from the lowest bits up: byte j holds
// those of codes j * (8 / bits) ... The graph takes digit i of byte j as floor(byte / 2^(i bits))
// mod 2^bits (plan.cpp, low_bits_nodes).
void pack_low_bits(const Scratch<uint8_t>& low, int32_t bits, std::vector<uint8_t>& out) {
  const size_t per_byte = static_cast<size_t>(8 / bits);
  out.assign(low.size() / per_byte, 0);
  for (size_t j = 0; j < out.size(); ++j) {
    uint32_t byte = 0;
    for (size_t i = 0; i < per_byte; ++i) byte |= static_cast<uint32_t>(low[j * per_byte + i]) << (i * static_cast<size_t>(bits));
    out[j] = static_cast<uint8_t>(byte);
  }
}

}  // namespace

ONNX_SHRINK_COLD void Encoder::int8(int32_t i) {
  const Item& item = plan_.items[i];
  const TensorInfo& t = index_.tensors[item.tensor];
  const Int8Layout& l = item.layout;
  const uint8_t* x = data_.floats(t);
  const uint64_t n = t.elements;
  codes_.resize(static_cast<size_t>(n));
  scales_.resize(l.groups);
  offsets_.resize(l.groups);
  zeros_.resize(l.groups);
  factors_.clear();
  kernels::ErrorSums e;
  if (l.seed) {
    kernels::SeedParams p = kernels::seed_params(item.lo, item.hi);  // the plan's range, from the same values
    kernels::quantize_seed(x, static_cast<size_t>(n), p, codes_.data(), e);
    if (kRoundingDraws && l.draw && p.scale > 0) {
      // A draw needs no parity with the original tool: its grid, shifted, in this engine's arithmetic.
      std::vector<kernels::Int8Params> grid(1);
      grid[0].scale = p.scale, grid[0].inv_scale = 1.0f / p.scale, grid[0].offset = p.offset;
      grid[0].zero = static_cast<int32_t>(p.zero);
      redraw(l, x, n, codes_.data(), grid, e, nullptr);
      p.offset = grid[0].offset;
    }
    scales_[0] = p.scale;
    offsets_[0] = p.offset;
    const float z = p.zero < -128.0f ? -128.0f : p.zero > 127.0f ? 127.0f : p.zero;
    zeros_[0] = static_cast<int8_t>(z);
  } else {
    // Separable and codebook schemes code the values divided by their factors.
    const uint8_t* v = x;
    const int64_t factor_axis = l.codebook ? l.axis : l.factor_axis;
    RowRanges rows;  // the ranges of the values divided by their factors, where they come with them
    if (factor_axis >= 0) {
      factors_ = layout_factors(l, x, t.dims, &item.in_maxima);
      std::vector<float> inverse(factors_.size());
      for (size_t k = 0; k < inverse.size(); ++k) inverse[k] = 1.0f / factors_[k];
      // Not assign() then scale in place: that is a second pass over the tensor (and a slow
      // byte-wise memmove in wasm without bulk memory).
      normalized_.resize(4 * n);
      multiply_along(x, t.dims, factor_axis, inverse.data(), normalized_.data(), &rows);
      v = normalized_.data();
    }
    // The fold form's offsets absorb the mean of their groups' errors (bias_correction.h): the
    // codes are made in the same pass as the sums for that and for the error (not with a draw, which
    // redraws codes once made and weighs them against the first codes' error).
    const bool fold = item.form == Form::Fold;
    const float* factors = factor_axis >= 0 ? factors_.data() : nullptr;
    uint8_t* low = nullptr;
    if (l.low_bits) low_.resize(static_cast<size_t>(n)), low = low_.data();
    if (l.codebook) {
      codebook(v, n);
    } else if (!(kRoundingDraws && l.draw)) {
      const std::vector<kernels::Int8Params> params = uniform_params(l, v, n, &rows);
      const double change = code_groups(l, t.dims, v, params.data(), codes_.data(), low, factors, offsets_.data(), fold, e);
      e.noise = std::max(0.0, e.noise + change);
      for (uint64_t g = 0; g < l.groups; ++g) scales_[g] = params[g].scale, zeros_[g] = static_cast<int8_t>(params[g].zero);
    } else if constexpr (kRoundingDraws) {
      // A draw: the codes first, then redrawn and weighed against the first ones' error as the
      // kernels sum it, then the offsets corrected.
      std::vector<kernels::Int8Params> params;
      // Separable codes: when the factor is the same along each row, the error where it counts
      // (x = u * factor) is the error of u weighted per row, summed while coding.
      const std::vector<float> row_weights = factor_axis >= 0 ? separable_row_weights(l, t.dims) : std::vector<float>();
      uniform_codes(l, v, n, codes_.data(), params, e, row_weights.empty() ? nullptr : row_weights.data(), low);
      for (uint64_t g = 0; g < l.groups; ++g) {
        scales_[g] = params[g].scale;  // the step of a code with its low bits (times 2^bits below)
        offsets_[g] = params[g].offset;
        zeros_[g] = static_cast<int8_t>(params[g].zero);
      }
      // Separable codes whose factor varies along each row (runs, here only with a draw): the error
      // where it counts weights each term by its factor squared, summed by the offset correction.
      // (Factors come with the fold form only; columns' factors are the same along each row.)
      const bool weighted = factor_axis >= 0 && row_weights.empty();
      if (fold) {
        if (weighted) e = kernels::ErrorSums{};
        const double change = correct_offsets(l, t.dims, v, codes_.data(), factors, scales_.data(), offsets_.data(), low, l.low_bits,
                                              weighted ? &e : nullptr);
        e.noise = std::max(0.0, e.noise + change);
      }
    }
    if (low) {
      // The graph multiplies (top 8 bits + low bits / 2^bits) by the stored scale: 2^bits steps
      // (exact: a power of two).
      for (float& s : scales_) s *= static_cast<float>(1 << l.low_bits);
      pack_low_bits(low_, l.low_bits, packed_low_);
    }
    if (l.codebook) {
      reconstructed_.resize(4 * n);
      for (uint64_t k = 0; k < n; ++k) kernels::store_f32(reconstructed_.data() + 4 * k, table_[static_cast<uint8_t>(codes_[k])]);
      multiply_along(reconstructed_.data(), t.dims, l.axis, factors_.data(), reconstructed_.data());
      kernels::error_sums(x, reconstructed_.data(), static_cast<size_t>(n), e);
    }
  }
  Dequantization d;
  d.layout = &l, d.form = item.form, d.dims = &t.dims, d.data_type = t.data_type;
  d.scales = scales_.data(), d.offsets = offsets_.data(), d.zeros = zeros_.data();
  d.factors = factors_.empty() ? nullptr : factors_.data(), d.table = l.codebook ? table_.data() : nullptr;
  // (Codes with low bits are planned only for values well inside their type's range: none moves.)
  const uint64_t moved = l.low_bits ? 0 : keep_codes_finite(d, x, codes_.data(), n, e.signal, e.noise);
  current_ = i;
  if (item.report < 0) return;
  TensorReport& report = plan_.report.tensors[item.report];
  set_sqnr(report, e.signal, e.noise);
  report.entropy_bytes = entropy_bytes(codes_.data(), n) + n * static_cast<uint64_t>(l.low_bits) / 8;
  if (moved) note_rounded_inward(report, moved, t.data_type);
}

// Weights (factor squared) per row of a separable layout, when the factor is the same along each
// row (the factor axis comes before the channel axis); empty otherwise.
ONNX_SHRINK_COLD std::vector<float> Encoder::separable_row_weights(const Int8Layout& l, const std::vector<int64_t>& dims) const {
  const size_t b = static_cast<size_t>(l.factor_axis), a = static_cast<size_t>(l.axis);
  if (l.kind != Int8Layout::Columns && b > a) return {};
  uint64_t stride = 1;  // of the factor axis, in elements
  for (size_t d = b + 1; d < dims.size(); ++d) stride *= static_cast<uint64_t>(dims[d]);
  const uint64_t extent = static_cast<uint64_t>(dims[b]);
  const uint64_t rows = l.kind == Int8Layout::Rows ? l.outer * l.channels : l.outer;
  const uint64_t width = l.kind == Int8Layout::Rows ? l.inner : l.channels;
  std::vector<float> w(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    const float f = factors_[(r * width / stride) % extent];
    w[r] = f * f;
  }
  return w;
}

// A table of 256 levels by k-means on the normalised values, and each value's index in it.
ONNX_SHRINK_COLD void Encoder::codebook(const uint8_t* v, uint64_t n) {
  const kernels::Range r = kernels::range_of(v, static_cast<size_t>(n));
  const float lo = r.lo, hi = r.hi;
  table_ = std::vector<float>(256, lo);
  if (!(hi > lo)) {
    std::fill(codes_.data(), codes_.data() + codes_.size(), 0);
    return;
  }
  palette::Histogram h = palette::make_histogram(lo, hi, 256);
  kernels::histogram(v, static_cast<size_t>(n), h.min, h.bin_scale, h.bins, h.cells.data());
  const palette::Design d = palette::choose(h, 256, palette::Choice::KMeans);
  for (size_t k = 0; k < d.levels.size() && k < 256; ++k) table_[k] = static_cast<float>(d.levels[k]);
  for (size_t k = d.levels.size(); k < 256; ++k) table_[k] = table_[d.levels.size() - 1];
  design_indices(v, static_cast<size_t>(n), h, d, indices_);
  // A level whose values are all one number becomes exactly that number (k-means on a histogram
  // gets it only to rounding): masks, one-hot and other few-valued tables come back exact.
  std::vector<uint32_t> only(256);
  std::vector<uint8_t> state(256, 0);  // 0: no value yet, 1: one number so far, 2: several
  for (uint64_t k = 0; k < n; ++k) {
    const uint8_t j = static_cast<uint8_t>(indices_[k]);
    codes_[k] = static_cast<int8_t>(j);
    uint32_t bits;
    std::memcpy(&bits, v + 4 * k, 4);
    if (state[j] == 0) only[j] = bits, state[j] = 1;
    else if (state[j] == 1 && bits != only[j]) state[j] = 2;
  }
  for (size_t j = 0; j < 256; ++j) {
    if (state[j] == 1) std::memcpy(&table_[j], &only[j], 4);
  }
}

// Palette's mapping: each value's level (its bytes, by element size T, so that the copies are
// single moves) to `out`, the levels used marked in `seen`, and into sums[0..2] the sum of x^2,
// the squared error of the levels and, WithOther, that of the original tool's uniform levels (for
// the comparison; each value's uniform level is computed here, not read from a pass of its own).
// The sums are locals, not the caller's array: the copies go through byte pointers, which may
// alias anything, so the compiler would store and reload the sums for every value.
namespace {

// A mapping's sums (the values' squares, their errors, and the errors of the other levels), each
// in four: value k into sum k % 4 (in every build), added ((0 + 1) + (2 + 3)) at the end. One
// running sum made each value wait for the previous one's addition. Carried from block to block.
struct MapSums {
  double signal[4] = {}, error[4] = {}, other_error[4] = {};
  void total(double* sums) const {
    auto total = [](const double* s) { return (s[0] + s[1]) + (s[2] + s[3]); };
    sums[0] = total(signal), sums[1] = total(error), sums[2] = total(other_error);
  }
};

// Maps n values (n a multiple of 4 unless they are the last) to their levels' bytes.
template <typename T, typename Index = uint16_t, bool WithOther = true>
void map_levels(const uint8_t* x, size_t n, const Index* index, const uint8_t* level_bytes, const float* level_value,
                const kernels::SeedLevels* other, const float* other_value, uint8_t* seen, uint8_t* out, MapSums& s) {
  for (size_t k = 0; k < n; ++k) {
    const size_t j = k & 3;
    const float v = kernels::load_f32(x + 4 * k);
    const auto level = index[k];
    std::memcpy(out + k * sizeof(T), level_bytes + level * sizeof(T), sizeof(T));
    seen[level] = 1;
    const double dv = double(v) - level_value[level];
    s.signal[j] += double(v) * v;
    s.error[j] += dv * dv;
    if constexpr (WithOther) {
      const double du = double(v) - other_value[kernels::seed_level(v, *other)];
      s.other_error[j] += du * du;
    }
  }
}

// Calls map(T{}) with T the unsigned type of `bytes` bytes (2, 4 or 8): one instance per size.
template <typename Map>
void by_element_size(int bytes, Map map) {
  if (bytes == 4) map(uint32_t{});
  else if (bytes == 2) map(uint16_t{});
  else map(uint64_t{});
}

}  // namespace

ONNX_SHRINK_COLD void Encoder::palette(int32_t i, const Payload& payload, Sink& out) {
  const Item& item = plan_.items[i];
  const TensorInfo& t = index_.tensors[item.tensor];
  const size_t n = static_cast<size_t>(t.elements);
  const uint8_t* x = data_.floats(t);
  const float lo = item.lo, hi = item.hi;  // the plan's, from the same values

  // Design the palette on a histogram, then map every value.
  palette::Histogram h = palette::make_histogram(lo, hi, item.levels);
  if (hi > lo) kernels::histogram(x, n, h.min, h.bin_scale, h.bins, h.cells.data());
  palette::Design d = palette::choose(h, item.levels, item.choice);
  const bool seed = d.scheme == "uniform";

  // Stored level values in the tensor's type, and those values as floats for the error.
  const int bytes = onnx::element_bits(t.data_type) / 8;
  out_.resize(n * bytes);
  double signal = 0, noise = 0, uniform_noise = 0;
  // Every value is finite (the plan checked), so a level rounded past the largest number of the
  // type (values at the edge of its range) is stored as that number, not as infinity.
  const float largest = onnx::largest_finite(t.data_type);
  auto store = [&](size_t k, float v) -> float {
    uint8_t* p = out_.data() + k * bytes;
    v = std::max(-largest, std::min(largest, v));
    switch (t.data_type) {
      case onnx::kFloat16: {
        const uint16_t h16 = kernels::float_to_half(v);
        std::memcpy(p, &h16, 2);
        return kernels::half_to_float(h16);
      }
      case onnx::kBfloat16: {
        const uint16_t b16 = kernels::float_to_bfloat(v);
        std::memcpy(p, &b16, 2);
        return kernels::bfloat_to_float(b16);
      }
      case onnx::kDouble: {
        const double dv = v;
        std::memcpy(p, &dv, 8);
        return v;
      }
      default:
        kernels::store_f32(p, v);
        return v;
    }
  };
  // The original tool's uniform levels, computed as its numpy code does: inverse = 1 / range and
  // zero in float64, the codes in float32, the values (q - zero) * range / (levels - 1) in float64.
  const uint32_t levels = item.levels;
  const float range = hi - lo;
  const double inverse = range > 0 ? 1.0 / static_cast<double>(range) : 0.0;
  const double half = levels / 2.0;
  const double zero = std::nearbyint(static_cast<double>(-lo) * inverse * (levels - 1)) - half;
  const double scale = static_cast<double>(range) / (levels - 1);  // numpy 1.x: float32 / int -> float64
  kernels::SeedLevels sl;
  sl.inverse = static_cast<float>(inverse);
  sl.steps = static_cast<float>(levels - 1);
  sl.zero = static_cast<float>(zero);
  sl.half = static_cast<float>(half);
  sl.lowest = static_cast<int32_t>(-sl.half);  // trunc, as numpy's astype(int32)
  const int32_t highest = static_cast<int32_t>(sl.half - 1);
  // The value of every level, exactly as the formula gives it.
  std::vector<float> uniform_values(static_cast<size_t>(highest - sl.lowest + 1));
  // (Past the type's largest number, a level is stored as that number: see store.)
  for (size_t k = 0; k < uniform_values.size(); ++k) {
    const double level = (static_cast<double>(sl.lowest + static_cast<int32_t>(k)) - zero) * scale;
    uniform_values[k] = static_cast<float>(std::max<double>(-largest, std::min<double>(largest, level)));
  }
  uint32_t used = 0;
  if (!seed && hi > lo) {
    const size_t count = d.levels.size();
    design_indices(x, n, h, d, indices_);
    // Each level's bytes in the tensor's type, and its value as read back (for the error).
    std::vector<float> stored(count);
    std::vector<uint8_t> level_bytes(count * bytes);
    for (size_t k = 0; k < count; ++k) {
      stored[k] = store(0, static_cast<float>(d.levels[k]));
      std::memcpy(&level_bytes[k * bytes], out_.data(), bytes);
    }
    std::vector<uint8_t> seen(count, 0);
    double sums[3] = {};
    MapSums s;
    by_element_size(bytes, [&](auto element) {
      map_levels<decltype(element)>(x, n, indices_.data(), level_bytes.data(), stored.data(), &sl, uniform_values.data(),
                                    seen.data(), out_.data(), s);
    });
    s.total(sums);
    signal = sums[0], noise = sums[1], uniform_noise = sums[2];
    for (uint8_t flag : seen) used += flag;
  }
  if (seed || !(hi > lo) || noise > uniform_noise) {
    // Uniform levels: chosen, or the safety net when the designed palette is not more accurate.
    std::vector<float> stored(uniform_values.size());
    std::vector<uint8_t> level_bytes(uniform_values.size() * bytes), seen(uniform_values.size(), 0);
    for (size_t k = 0; k < uniform_values.size(); ++k) {
      stored[k] = store(0, uniform_values[k]);
      std::memcpy(&level_bytes[k * bytes], out_.data(), bytes);
    }
    double sums[3] = {};
    if (!(range > 0)) {
      for (size_t k = 0; k < n; ++k) {
        const float v = kernels::load_f32(x + 4 * k);
        const double dv = double(v) - store(k, v);
        sums[0] += double(v) * v;
        sums[1] += dv * dv;
      }
    } else {
      // A block of values at a time: their levels are still in L1 when they are mapped.
      constexpr size_t kBlock = 4096;  // a multiple of 4: the sums' lanes go on across blocks
      seed_.resize(std::min<size_t>(n, kBlock));
      MapSums s;
      by_element_size(bytes, [&](auto element) {
        for (size_t b = 0; b < n; b += kBlock) {
          const size_t m = std::min(kBlock, n - b);
          kernels::seed_levels(x + 4 * b, m, sl, seed_.data());
          map_levels<decltype(element), int32_t, false>(x + 4 * b, m, seed_.data(), level_bytes.data(), stored.data(), nullptr,
                                                        nullptr, seen.data(), out_.data() + b * bytes, s);
        }
      });
      s.total(sums);
    }
    signal = sums[0], noise = sums[1];
    d.scheme = "uniform";
    used = 0;
    for (uint8_t flag : seen) used += flag;
    if (!(range > 0)) used = n ? 1 : 0;
  }
  if (item.report >= 0) {
    TensorReport& r = plan_.report.tensors[item.report];
    set_sqnr(r, signal, noise);
    r.scheme = d.scheme;
    r.levels = used;
  }
  write_exact(out, out_.data(), out_.size(), payload);
}

// A small float32 tensor as float16 (the plan checked that every value fits).
ONNX_SHRINK_COLD void Encoder::half(int32_t i, const Payload& payload, Sink& out) {
  const TensorInfo& t = index_.tensors[plan_.items[i].tensor];
  const uint8_t* x = data_.floats(t);
  out_.resize(static_cast<size_t>(2 * t.elements));
  for (uint64_t k = 0; k < t.elements; ++k) {
    const uint16_t h = kernels::float_to_half(kernels::load_f32(x + 4 * k));
    std::memcpy(out_.data() + 2 * k, &h, 2);
  }
  write_exact(out, out_.data(), out_.size(), payload);
}

ONNX_SHRINK_COLD void Encoder::write(const Payload& p, Sink& out) {
  switch (p.kind) {
    case PayloadKind::Codes:
      int8(p.item);
      write_exact(out, codes_.data(), codes_.size(), p);
      break;
    case PayloadKind::LowBits:
      if (current_ != p.item) throw std::logic_error("onnx-shrink: low bits before codes");
      write_exact(out, packed_low_.data(), packed_low_.size(), p);
      break;
    case PayloadKind::Half:
      half(p.item, p, out);
      break;
    case PayloadKind::Scales:
      if (current_ != p.item) throw std::logic_error("onnx-shrink: scales before codes");
      write_exact(out, scales_.data(), 4 * scales_.size(), p);
      break;
    case PayloadKind::Offsets:
      if (current_ != p.item) throw std::logic_error("onnx-shrink: offsets before codes");
      write_exact(out, offsets_.data(), 4 * offsets_.size(), p);
      break;
    case PayloadKind::ZeroPoints:
      if (current_ != p.item) throw std::logic_error("onnx-shrink: zero points before codes");
      write_exact(out, zeros_.data(), zeros_.size(), p);
      break;
    case PayloadKind::Factors:
      if (current_ != p.item) throw std::logic_error("onnx-shrink: factors before codes");
      write_exact(out, factors_.data(), 4 * factors_.size(), p);
      break;
    case PayloadKind::Table:
      if (current_ != p.item) throw std::logic_error("onnx-shrink: table before codes");
      write_exact(out, table_.data(), 4 * table_.size(), p);
      break;
    case PayloadKind::Palette:
      palette(p.item, p, out);
      break;
    case PayloadKind::Copy: {
      const TensorInfo& t = index_.tensors[plan_.items[p.item].tensor];
      write_exact(out, data_.raw(t), TensorData::raw_size(t), p);
      break;
    }
    case PayloadKind::Expanded:
      throw std::logic_error("onnx-shrink: expand payload in a shrink plan");
  }
}

}  // namespace onnx_shrink
