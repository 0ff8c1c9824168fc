// How an 8-bit tensor is grouped, and the choice of grouping.
//
// Every 8-bit scheme stores codes q and reconstructs x' from them:
//   uniform    x' = q * scale[g] + offset[g]                 g = the value's group
//   separable  x' = (q * scale[g] + offset[g]) * factor[j]   j = its index along `factor_axis`
//   codebook   x' = table[q] * factor[i]                     i = its index along `axis`
// Groups are slices along `axis` (per channel), blocks along the reduction axis, or the whole
// tensor. Separable scales suit weights whose range varies along two axes (output and input
// channels); a codebook suits values with few distinct magnitudes (a Fourier basis times a window).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_shrink.h"

namespace onnx_shrink {

// A tensor seen as [outer, extent, inner] around one axis.
struct AxisView {
  uint64_t outer = 1, extent = 1, inner = 1;
};
AxisView view_around(const std::vector<int64_t>& dims, int64_t axis);

struct Int8Layout {
  enum Kind : uint8_t {
    Tensor,       // one group
    Rows,         // per slice of `axis`, inner > 1: rows of `inner` values, row r uses slice r % channels
    Columns,      // per slice of the last axis: a matrix [outer, channels], one group per column
    RowBlocks,    // groups of `block` consecutive values along inner
    ColumnBlocks  // channel axis last: groups of `block` rows within each column
  } kind = Tensor;
  int64_t axis = -1;
  uint32_t block = 0;
  uint64_t outer = 1, channels = 1, inner = 1;
  uint64_t groups = 1;
  bool seed = false;             // the original Shrink Ray's per-tensor formula
  int64_t factor_axis = -1;      // separable: the axis of the second factor
  int factor_power = 0;          // separable: factor = max|x| along factor_axis, to the power /4
  bool codebook = false;         // codes index `table`; factor along `axis` (power 4)
  uint32_t code_bits = 8;        // uniform and separable: bits of the stored code (2 ... 8; below 8 in a
                                 // narrower range, one byte each still: see code_format.h)
  int32_t low_bits = 0;          // uniform and separable: bits of each code below its top 8, stored
                                 // packed apart (fold form only; see kernels::Int8Params)
  uint32_t draw = 0;             // Options::rounding_draw
  uint64_t salt = 0;             // decorrelates the draws of different tensors
  std::vector<int64_t> code_dims, scale_dims, factor_dims;  // stored shapes
  double noise = 0;              // estimated sum of squared errors (for the choice)
  std::string scheme() const;    // "tensor", "channel", "block", "separable", "codebook"
  uint64_t factor_count() const;
  uint64_t packed_low_bytes(uint64_t elements) const { return elements * static_cast<uint64_t>(low_bits) / 8; }
};

// The grouping for `form`: per tensor, per slice along `axis`, or blocks of `block` along the
// reduction axis. `note` explains a fallback (blocks that do not divide the axis).
Int8Layout uniform_layout(const std::vector<int64_t>& dims, int64_t axis, uint32_t block, Form form, std::string& note);

// Chooses the 8-bit scheme of one tensor (`x`: its values as fp32). `out_axis` and `in_axis` are
// the output- and input-channel axes the consuming op gives the weight (-1: none). Without
// `search` (scheme "channel") or in the DequantizeLinear form: uniform per output channel.
// Otherwise: per output channel with a factor per input channel (separable), or a codebook when
// one is estimated to be 6 dB more accurate. `known`: the maxima along the input-channel axis, when
// the caller has them (the plan's pass over the values takes them).
struct AxisMaxima;
Int8Layout choose_int8_layout(const uint8_t* x, const std::vector<int64_t>& dims, int64_t out_axis, int64_t in_axis,
                              Form form, bool search, bool codebooks = true, const AxisMaxima* known = nullptr);

// The SQNR (dB) a layout of channels or blocks (axis >= 0) is expected to give `x` with 8-bit
// codes, estimated from a sample of its slices: for ordering tensors by it.
double estimate_sqnr_db(const Int8Layout& l, const uint8_t* x, const std::vector<int64_t>& dims);

// The group of the value at storage index k.
uint64_t group_of(const Int8Layout& l, uint64_t k);

// Min and max of every group of a uniform layout (x in the layout's own value domain); `finite`
// (when given) becomes false if a value is NaN or infinite.
void group_ranges(const Int8Layout& l, const uint8_t* x, uint64_t n, std::vector<float>& lo, std::vector<float>& hi,
                  bool* finite = nullptr);

// The largest magnitude of each slice along `axis`, and from the same pass over x the range of the
// whole tensor and whether every value is finite. The plan takes it along a weight's input-channel
// axis as it checks the values, and the encoder makes that axis' factors from it: one read of the
// weight for both.
struct AxisMaxima {
  int64_t axis = -1;  // none taken
  std::vector<float> absmax;
  float lo = 0, hi = 0;
  bool finite = true;
};
AxisMaxima axis_maxima(const uint8_t* x, const std::vector<int64_t>& dims, int64_t axis);

// The number of values of a tensor of these dimensions.
uint64_t element_count(const std::vector<int64_t>& dims);

// The separable or codebook factors of a tensor (length factor_count()), from `known` when it holds
// the maxima along the factor axis.
std::vector<float> layout_factors(const Int8Layout& l, const uint8_t* x, const std::vector<int64_t>& dims,
                                  const AxisMaxima* known = nullptr);

// out = x times factors[j], j each value's index along `axis` (fp32 bytes; out may be x). With
// `rows`, where the product goes as rows of whole runs of the axis (a conv weight's kernels along
// its input channels: one row per output channel), each row's least and largest product, in the
// same pass; otherwise `rows` is left empty. Rows of a given count split the tensor evenly.
struct RowRanges {
  std::vector<float> lo, hi;
};
void multiply_along(const uint8_t* x, const std::vector<int64_t>& dims, int64_t axis, const float* factors, uint8_t* out,
                    RowRanges* rows = nullptr);

}  // namespace onnx_shrink
