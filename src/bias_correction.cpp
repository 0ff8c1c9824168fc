#include "bias_correction.h"

#include <algorithm>

#include "cold.h"
#include "kernels/simd.h"
#include "kernels/slices.h"

namespace onnx_shrink {

namespace {

// Per group, with d = value - reconstruction before the factor and f the factor (1 without one):
// the errors the model sees are d f; moving the offset by t changes them to (d - t) f.
struct Sums {
  double df = 0, f = 0, dff = 0, ff = 0;  // sum d f, sum f, sum d f^2, sum f^2
  bool zero = false;
};

// A whole code as a float (exact): its top 8 bits and, when there are any, its low bits.
inline float code_at(const int8_t* codes, const uint8_t* low, int32_t bits, uint64_t k) {
  return low ? static_cast<float>(codes[k] * (1 << bits) + low[k]) : static_cast<float>(codes[k]);
}

// The factor of each element in storage order: periodic, so a counter, not a division.
struct FactorWalk {
  const float* factors;
  uint64_t inner, extent, j = 0, left;
  FactorWalk(const float* f, const AxisView& v) : factors(f), inner(v.inner), extent(v.extent), left(v.inner) {}
  // How many elements from here on share the current factor (all of them without factors).
  uint64_t same() const { return factors ? left : UINT64_MAX; }
  double current() const { return factors ? factors[j] : 1.0; }
  // Moves on by `count` elements, at most same().
  void advance(uint64_t count) {
    if (!factors) return;
    left -= count;
    if (left == 0) {
      left = inner;
      if (++j == extent) j = 0;
    }
  }
  // The factor of element k, directly.
  double at(uint64_t k) const { return factors ? factors[(k / inner) % extent] : 1.0; }
};

// The errors d = value - reconstruction (before the factor) of values [begin, end) of one group
// into `out`, the reconstruction as the model computes it (float Cast, Mul, Add), four at a time
// with the same operations lane by lane as the scalar loop; whether one of the values is zero.
ONNX_SHRINK_NOINLINE bool errors(const uint8_t* values, const int8_t* codes, const uint8_t* low, int32_t bits, uint64_t begin, uint64_t end,
            float scale, float offset, double* out) {
  bool any_zero = false;
  uint64_t k = begin;
#if ONNX_SHRINK_SIMD
  {
    namespace v4 = kernels::v4;
    const v4::f32 vscale = v4::splat(scale), voffset = v4::splat(offset), step = v4::splat(static_cast<float>(1 << bits));
    v4::i32 zeros = v4::isplat(0);
    for (; k + 4 <= end; k += 4) {
      const v4::f32 x = v4::load(values + 4 * k);
      v4::f32 code = v4::load_i8x4_as_float(reinterpret_cast<const uint8_t*>(codes + k));
      if (low) code = v4::add(v4::mul(code, step), v4::load_u8x4_as_float(low + k));
      const v4::f32 u = v4::add(v4::mul(code, vscale), voffset);
      v4::store_f64(out + (k - begin), v4::sub_f64(v4::widen_low(x), v4::widen_low(u)));
      v4::store_f64(out + (k - begin) + 2, v4::sub_f64(v4::widen_high(x), v4::widen_high(u)));
      zeros = v4::bor(zeros, v4::zero_mask(x));
    }
    any_zero = v4::any(zeros);
  }
#endif
  for (; k < end; ++k) {
    const float v = kernels::load_f32(values + 4 * k);
    any_zero |= v == 0.0f;
    out[k - begin] = static_cast<double>(v) - (code_at(codes, low, bits, k) * scale + offset);
  }
  return any_zero;
}

// A sum of errors in a fixed order, the same in every build: the even and the odd positions in
// two sums (added in order), then those two added.
struct OrderedSum {
  double even = 0, odd = 0;
  uint64_t count = 0;
  void add(const double* d, uint64_t n) {
    const bool swapped = count & 1;  // d[0] goes to the odd sum
    double a = swapped ? odd : even, b = swapped ? even : odd;
    uint64_t i = 0;
    for (; i + 2 <= n; i += 2) a += d[i], b += d[i + 1];
    if (i < n) a += d[i];
    even = swapped ? b : a, odd = swapped ? a : b, count += n;
  }
  double total() const { return even + odd; }
};

// Adds `count` values of one factor f whose errors sum to d.
inline void accumulate(Sums& s, double d, double f, double count) {
  s.df += d * f;
  s.f += f * count;
  s.dff += d * f * f;
  s.ff += f * f * count;
}

// Groups that are runs of consecutive values: the whole tensor, rows along the channel axis, blocks.
// Within a run, the values that share a factor f (a segment) add their summed error D once: D f,
// D f^2. The errors go through a buffer a stretch at a time, so that short segments (a conv
// kernel's 3x3 values per input channel) cost no call or tail each.
ONNX_SHRINK_NOINLINE void runs(const Int8Layout& l, uint64_t n, const uint8_t* values, const int8_t* codes, const uint8_t* low, int32_t bits,
          const float* scales, const float* offsets, FactorWalk& fw, std::vector<Sums>& sums) {
  const uint64_t length = l.kind == Int8Layout::Tensor ? n : l.kind == Int8Layout::Rows ? l.inner : l.block;
  constexpr uint64_t kStretch = 2048;
  std::vector<double> d(std::min(length, kStretch));
  for (uint64_t start = 0, r = 0; start < n; start += length, ++r) {
    const uint64_t g = l.kind == Int8Layout::Tensor ? 0 : l.kind == Int8Layout::Rows ? r % l.channels : r;
    Sums s = sums[g];
    OrderedSum segment;
    for (uint64_t k = start, end = start + length; k < end;) {
      const uint64_t stretch_end = std::min(end, k + kStretch);
      s.zero |= errors(values, codes, low, bits, k, stretch_end, scales[g], offsets[g], d.data());
      for (uint64_t j = k; j < stretch_end;) {
        const uint64_t left = fw.same(), stop = stretch_end - j < left ? stretch_end : j + left;
        segment.add(d.data() + (j - k), stop - j);
        const double f = fw.current();
        fw.advance(stop - j);
        if (stop == j + left || stop == end) {  // the segment ends: its factor changes, or the run
          accumulate(s, segment.total(), f, static_cast<double>(segment.count));
          segment = OrderedSum();
        }
        j = stop;
      }
      k = stretch_end;
    }
    sums[g] = s;
  }
}

// Groups that are columns (or blocks of rows within columns) of a [rows, channels] matrix, the
// factor the same along each row: column sums, row by row (as the values lie in memory).
void columns(const Int8Layout& l, const uint8_t* values, const int8_t* codes, const uint8_t* low, int32_t bits,
             const float* scales, const float* offsets, const FactorWalk& fw, std::vector<Sums>& sums) {
  const uint64_t c = l.channels;
  // Float sums per column over at most kFlush rows (each in row order, in the SIMD and the scalar
  // loop alike, so every build gets the same bits), then added into the double sums.
  constexpr uint64_t kFlush = 256;
  std::vector<float> df(c), dff(c);
  std::vector<int32_t> zero(c);
  // Rows go in slices (kernels/slices.h), the sums carried from one slice to the next.
  kernels::for_slices(l.outer, kernels::rows_per_slice(c), [&](size_t begin, size_t end) {
    // Locals, not the captured vectors: the stores below go through byte pointers, which may alias
    // anything, so the compiler would reload every captured pointer after each of them.
    float* const sum_df = df.data();
    float* const sum_dff = dff.data();
    int32_t* const any_zero = zero.data();
    for (uint64_t r = begin; r < end; ++r) {
      const float f = static_cast<float>(fw.at(r * c)), ff = f * f;
      const uint64_t first = l.kind == Int8Layout::ColumnBlocks ? (r / l.block) * c : 0;
      const uint8_t* v = values + 4 * r * c;
      const int8_t* q = codes + r * c;
      const uint8_t* lq = low ? low + r * c : nullptr;
      const float* scale = scales + first;
      const float* offset = offsets + first;
      uint64_t k = 0;
#if ONNX_SHRINK_SIMD
      // Four columns at a time: the same operations, lane by lane, as the scalar loop below.
      const kernels::v4::f32 vf = kernels::v4::splat(f), vff = kernels::v4::splat(ff);
      const kernels::v4::f32 step = kernels::v4::splat(static_cast<float>(1 << bits));
      for (; k + 4 <= c; k += 4) {
        namespace v4 = kernels::v4;
        const v4::f32 x = v4::load(v + 4 * k);
        v4::f32 code = v4::load_i8x4_as_float(reinterpret_cast<const uint8_t*>(q + k));
        if (lq) code = v4::add(v4::mul(code, step), v4::load_u8x4_as_float(lq + k));  // exact: at most 8 bits each
        const v4::f32 u = v4::add(v4::mul(code, v4::load(reinterpret_cast<const uint8_t*>(scale + k))),
                                  v4::load(reinterpret_cast<const uint8_t*>(offset + k)));
        const v4::f32 d = v4::sub(x, u);
        uint8_t* a = reinterpret_cast<uint8_t*>(sum_df + k);
        uint8_t* b = reinterpret_cast<uint8_t*>(sum_dff + k);
        v4::store(a, v4::add(v4::load(a), v4::mul(d, vf)));
        v4::store(b, v4::add(v4::load(b), v4::mul(d, vff)));
        v4::store_i32(any_zero + k, v4::bor(v4::load_i32(any_zero + k), v4::zero_mask(x)));
      }
#endif
      for (; k < c; ++k) {
        const float x = kernels::load_f32(v + 4 * k);
        const float d = x - (code_at(q, lq, bits, k) * scale[k] + offset[k]);
        sum_df[k] += d * f;
        sum_dff[k] += d * ff;
        any_zero[k] |= x == 0.0f ? -1 : 0;
      }
      for (uint64_t k = 0; k < c && l.kind == Int8Layout::ColumnBlocks; ++k) {
        sums[first + k].f += f, sums[first + k].ff += ff;
      }
      if (l.kind == Int8Layout::Columns) sums[0].f += f, sums[0].ff += ff;  // the same for every column
      const bool block_ends = l.kind == Int8Layout::ColumnBlocks && ((r + 1) % l.block == 0);
      if (!block_ends && (r + 1) % kFlush != 0 && r + 1 != l.outer) continue;
      for (uint64_t k = 0; k < c; ++k) {
        Sums& s = sums[first + k];
        s.df += sum_df[k], s.dff += sum_dff[k], s.zero = s.zero || any_zero[k] != 0;
        sum_df[k] = sum_dff[k] = 0, any_zero[k] = 0;
      }
    }
  });
  if (l.kind == Int8Layout::Columns) {
    for (uint64_t k = 1; k < c; ++k) sums[k].f = sums[0].f, sums[k].ff = sums[0].ff;
  }
}

}  // namespace

ONNX_SHRINK_COLD double correct_offsets(const Int8Layout& l, const std::vector<int64_t>& dims, const uint8_t* values, const int8_t* codes,
                                        const float* factors, const float* scales, float* offsets, const uint8_t* low, int32_t bits) {
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);
  std::vector<Sums> sums(l.groups);
  FactorWalk fw(factors, factors ? view_around(dims, l.factor_axis) : AxisView{});
  const bool row_factor = !factors || fw.inner % l.channels == 0;
  if ((l.kind == Int8Layout::Columns || l.kind == Int8Layout::ColumnBlocks) && row_factor) {
    columns(l, values, codes, low, bits, scales, offsets, fw, sums);
  } else if (l.kind == Int8Layout::Columns || l.kind == Int8Layout::ColumnBlocks) {
    for (uint64_t k = 0; k < n; ++k) {  // a factor that changes along a row (not made by the chooser)
      const uint64_t g = group_of(l, k);
      double d = 0;
      sums[g].zero |= errors(values, codes, low, bits, k, k + 1, scales[g], offsets[g], &d);
      accumulate(sums[g], d, fw.current(), 1);
      fw.advance(1);
    }
  } else {
    runs(l, n, values, codes, low, bits, scales, offsets, fw, sums);
  }
  // Errors (d - t) f sum to zero for t = sum d f / sum f; the squared error changes by
  // -2 t sum d f^2 + t^2 sum f^2 (with t as stored, a float).
  double change = 0;
  for (uint64_t g = 0; g < l.groups; ++g) {
    const Sums& s = sums[g];
    if (s.zero || !(s.f > 0)) continue;
    const float moved = static_cast<float>(offsets[g] + s.df / s.f);
    const double t = static_cast<double>(moved) - offsets[g];
    offsets[g] = moved;
    change += -2 * t * s.dff + t * t * s.ff;
  }
  return change;
}

}  // namespace onnx_shrink
