#include "bias_correction.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

// The factor of each element in storage order (1 without factors).
struct FactorWalk {
  const float* factors;
  uint64_t inner, extent;
  FactorWalk(const float* f, const AxisView& v) : factors(f), inner(v.inner), extent(v.extent) {}
  double at(uint64_t k) const { return factors ? factors[(k / inner) % extent] : 1.0; }
};

// The error d = value - reconstruction (before the factor) of value k of a group, the
// reconstruction as the model computes it (float Cast, Mul, Add).
inline double error_at(const uint8_t* values, const int8_t* codes, const uint8_t* low, int32_t bits, uint64_t k, float scale,
                       float offset) {
  return static_cast<double>(kernels::load_f32(values + 4 * k)) - (code_at(codes, low, bits, k) * scale + offset);
}

// Adds `count` values of one factor f whose errors sum to d.
inline void accumulate(Sums& s, double d, double f, double count) {
  s.df += d * f;
  s.f += f * count;
  s.dff += d * f * f;
  s.ff += f * f * count;
}

// Running sums of d f and d f^2 over a run of one group, eight of each: value i of the run goes to
// sum i mod 8. The SIMD loop and the scalar one do the same operations, sum by sum, so every build
// gets the same bits; eight independent sums keep the adds from waiting on one another.
struct LaneSums {
  double df[8] = {}, dff[8] = {};
  // The squared error and the squared value, both times the factor squared: (d f)^2 and (u f)^2,
  // in four sums each (value i to sum i mod 4).
  double noise[4] = {}, signal[4] = {};
  static double total4(const double* l) { return (l[0] + l[1]) + (l[2] + l[3]); }
  // The sums added in a fixed order: ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)).
  static double total(const double* l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }
};

// The same sums in float over a block of at most kBlock values (kBlock / 8 values a sum), then
// added into LaneSums' doubles lane by lane, as columns() below does: float lanes are four to a
// SIMD vector where doubles are two.
constexpr uint64_t kBlock = 256;
struct BlockSums {
  float df[8] = {}, dff[8] = {}, noise[4] = {}, signal[4] = {};
  void add_to(LaneSums& s) const {
    for (int i = 0; i < 8; ++i) s.df[i] += static_cast<double>(df[i]), s.dff[i] += static_cast<double>(dff[i]);
    for (int i = 0; i < 4; ++i) s.noise[i] += static_cast<double>(noise[i]), s.signal[i] += static_cast<double>(signal[i]);
  }
};

// Where a run's codes come from. ReadCodes: made before (by kernels::quantize, or redrawn).
// MakeCodes: made here from the values, with kernels::quantize's arithmetic, and stored, in the
// pass that sums their errors: the same codes, and the same sums, as quantize and then ReadCodes.
// Either gives each value's whole code (its top 8 bits and low bits) as a float, exactly.
struct ReadCodes {
  const int8_t* codes;
  const uint8_t* low;
  int32_t bits;
  float code(float, uint64_t k) const { return code_at(codes, low, bits, k); }
  // Value `at` of column group g (columns()).
  float column(float, uint64_t at, uint64_t) const { return code_at(codes, low, bits, at); }
#if ONNX_SHRINK_SIMD
  ONNX_SHRINK_ALWAYS_INLINE kernels::v4::f32 column4(kernels::v4::f32, uint64_t at, uint64_t) const {
    namespace v4 = kernels::v4;
    v4::f32 c = v4::load_i8x4_as_float(reinterpret_cast<const uint8_t*>(codes + at));
    if (low) c = v4::add(v4::mul(c, v4::splat(static_cast<float>(1 << bits))), v4::load_u8x4_as_float(low + at));
    return c;
  }
  // The codes of values at ... at + 7, as two quads of floats.
  ONNX_SHRINK_ALWAYS_INLINE void code8(const kernels::v4::f32* x, uint64_t at, kernels::v4::f32* out) const {
    for (int h = 0; h < 2; ++h) out[h] = column4(x[h], at + 4 * h, 0);
  }
#endif
};

struct MakeCodes {
  int8_t* codes;
  uint8_t* low;  // when p.bits > 0
  const kernels::Int8Params* p;
  float code(float v, uint64_t k) const {
    const int32_t q = kernels::code_of(v, p->inv_scale, p->zero, p->first(), p->last());
    codes[k] = static_cast<int8_t>(q >> p->bits);  // arithmetic shift: the floor, for negative codes too
    if (p->bits) low[k] = static_cast<uint8_t>(q & ((1 << p->bits) - 1));
    return static_cast<float>(q);
  }
#if ONNX_SHRINK_SIMD
  ONNX_SHRINK_ALWAYS_INLINE void code8(const kernels::v4::f32* x, uint64_t at, kernels::v4::f32* out) const {
    namespace v4 = kernels::v4;
    const v4::f32 inv = v4::splat(p->inv_scale);
    const v4::i32 zero = v4::isplat(p->zero), first = v4::isplat(p->first()), last = v4::isplat(p->last());
    v4::i32 q[2];
    for (int h = 0; h < 2; ++h) {
      q[h] = kernels::codes_of(x[h], inv, zero, first, last);
      out[h] = v4::to_float(q[h]);
    }
    uint8_t* c = reinterpret_cast<uint8_t*>(codes + at);
    if (!p->bits) return v4::store_i8x8(c, q[0], q[1]);
    const v4::i32 mask = v4::isplat((1 << p->bits) - 1);
    v4::store_u8x8(low + at, v4::band(q[0], mask), v4::band(q[1], mask));
    v4::store_i8x8(c, v4::shr_s(q[0], p->bits), v4::shr_s(q[1], p->bits));
  }
#endif
};

// Codes of columns made here, as kernels::quantize_columns makes them: each column group's inverse
// scale and zero point as lanes (groups g ... g + 3 side by side), the code range shared.
struct MakeColumnCodes {
  int8_t* codes;
  uint8_t* low;  // when bits > 0
  const float* inv;
  const int32_t* zero;
  int32_t first, last, bits;
  float column(float v, uint64_t at, uint64_t g) const {
    const int32_t q = kernels::code_of(v, inv[g], zero[g], first, last);
    codes[at] = static_cast<int8_t>(q >> bits);
    if (bits) low[at] = static_cast<uint8_t>(q & ((1 << bits) - 1));
    return static_cast<float>(q);
  }
#if ONNX_SHRINK_SIMD
  ONNX_SHRINK_ALWAYS_INLINE kernels::v4::f32 column4(kernels::v4::f32 x, uint64_t at, uint64_t g) const {
    namespace v4 = kernels::v4;
    const v4::f32 s = v4::load(reinterpret_cast<const uint8_t*>(inv + g));
    const v4::i32 q = kernels::codes_of(x, s, v4::load_i32(zero + g), v4::isplat(first), v4::isplat(last));
    if (bits) {
      v4::store_u8x4(low + at, v4::band(q, v4::isplat((1 << bits) - 1)));
      v4::store_i8x4(reinterpret_cast<uint8_t*>(codes + at), v4::shr_s(q, bits));
    } else {
      v4::store_i8x4(reinterpret_cast<uint8_t*>(codes + at), q);
    }
    return v4::to_float(q);
  }
#endif
};

// Values [begin, end) of one group into `sums` (`begin` a multiple of 8 values from the run's start),
// `f` the factor of each value (f[i] that of value begin + i), the reconstruction code * scale +
// offset in float as the model computes it; whether one of the values is zero.
template <typename Codes>
ONNX_SHRINK_ALWAYS_INLINE bool lane_sums(const uint8_t* values, const Codes& codes, uint64_t begin, uint64_t end, float scale,
                                         float offset, const float* f, LaneSums& sums) {
  bool any_zero = false;
  for (uint64_t block = begin; block < end; block += kBlock) {
    const uint64_t stop = std::min(end, block + kBlock);
    BlockSums b;
    uint64_t k = block;
#if ONNX_SHRINK_SIMD
    {
      namespace v4 = kernels::v4;
      const v4::f32 vscale = v4::splat(scale), voffset = v4::splat(offset);
      v4::i32 zeros = v4::isplat(0);
      v4::f32 df[2] = {v4::splat(0), v4::splat(0)}, dff[2] = {v4::splat(0), v4::splat(0)};
      v4::f32 noise = v4::splat(0), signal = v4::splat(0);
      for (; k + 8 <= stop; k += 8) {
        const v4::f32 x[2] = {v4::load(values + 4 * k), v4::load(values + 4 * (k + 4))};
        v4::f32 c[2];
        codes.code8(x, k, c);
        for (int h = 0; h < 2; ++h) {
          const v4::f32 d = v4::sub(x[h], v4::add(v4::mul(c[h], vscale), voffset));
          const v4::f32 vf = v4::load(reinterpret_cast<const uint8_t*>(f + (k + 4 * h - begin)));
          const v4::f32 t = v4::mul(d, vf), w = v4::mul(x[h], vf);
          zeros = v4::bor(zeros, v4::zero_mask(x[h]));
          df[h] = v4::add(df[h], t);
          dff[h] = v4::add(dff[h], v4::mul(t, vf));
          noise = v4::add(noise, v4::mul(t, t));
          signal = v4::add(signal, v4::mul(w, w));
        }
      }
      for (int h = 0; h < 2; ++h) {
        v4::store(reinterpret_cast<uint8_t*>(b.df + 4 * h), df[h]);
        v4::store(reinterpret_cast<uint8_t*>(b.dff + 4 * h), dff[h]);
      }
      v4::store(reinterpret_cast<uint8_t*>(b.noise), noise);
      v4::store(reinterpret_cast<uint8_t*>(b.signal), signal);
      any_zero |= v4::any(zeros);
    }
#endif
    for (; k < stop; ++k) {
      const uint64_t i = k - begin, lane = i & 7;
      const float x = kernels::load_f32(values + 4 * k);
      any_zero |= x == 0.0f;
      const float d = x - (codes.code(x, k) * scale + offset);
      const float t = d * f[i], w = x * f[i];
      b.df[lane] += t;
      b.dff[lane] += t * f[i];
      b.noise[lane & 3] += t * t;
      b.signal[lane & 3] += w * w;
    }
    b.add_to(sums);
  }
  return any_zero;
}

// The factors of a stretch of values, f[i] that of value start + i, with their sum and the sum of
// their squares; kept while the next stretch starts at the same place in the factors' period (a
// conv kernel's rows all do) and is as long. Without factors, all 1 (d 1 is d exactly).
class StretchFactors {
 public:
  StretchFactors(const float* factors, const AxisView& v)
      : factors_(factors ? factors : &one_), inner_(factors ? v.inner : 1), extent_(factors ? v.extent : 1) {}
  // The stretch's factors.
  const float* at(uint64_t start, uint64_t count) {
    const uint64_t phase = start % (inner_ * extent_);
    if (phase == phase_ && count == f_.size()) return f_.data();
    phase_ = phase;
    f_.resize(count);
    sum_ = sum_sq_ = 0;
    uint64_t j = (start / inner_) % extent_, left = inner_ - start % inner_;
    for (uint64_t i = 0; i < count;) {
      const float f = factors_[j];
      const double fd = f;
      for (const uint64_t stop = std::min(count, i + left); i < stop; ++i) f_[i] = f, sum_ += fd, sum_sq_ += fd * fd;
      left = inner_;
      if (++j == extent_) j = 0;
    }
    return f_.data();
  }
  // Of the last stretch.
  double sum() const { return sum_; }
  double sum_sq() const { return sum_sq_; }

 private:
  static constexpr float one_ = 1.0f;
  const float* factors_;
  uint64_t inner_, extent_, phase_ = UINT64_MAX;
  std::vector<float> f_;
  double sum_ = 0, sum_sq_ = 0;
};

// Groups that are runs of consecutive values: the whole tensor, rows along the channel axis, blocks.
// A run goes a stretch at a time (a multiple of 8 values long, so that each value keeps its sum),
// with each value's factor beside it: no walk, segment by segment, over short stretches of one
// factor (a conv kernel's 3x3 values per input channel). Runs up to a stretch long are one stretch
// each, so that the rows of a conv kernel all use the same factors. `group_codes(g)`: group g's codes
// (ReadCodes or MakeCodes).
template <typename GroupCodes>
ONNX_SHRINK_NOINLINE void runs(const Int8Layout& l, uint64_t n, const uint8_t* values, const GroupCodes& group_codes, const float* scales,
                               const float* offsets, StretchFactors& factors, std::vector<Sums>& sums, kernels::ErrorSums* weighted) {
  const uint64_t length = l.kind == Int8Layout::Tensor ? n : l.kind == Int8Layout::Rows ? l.inner : l.block;
  constexpr uint64_t kStretch = 32768;  // 128 KB of factors
  for (uint64_t start = 0, r = 0; start < n; start += length, ++r) {
    const uint64_t g = l.kind == Int8Layout::Tensor ? 0 : l.kind == Int8Layout::Rows ? r % l.channels : r;
    Sums& s = sums[g];
    LaneSums lanes;
    const auto codes = group_codes(g);
    // Stretches as calls of their own (kernels/slices.h): lane_sums inlined in each.
    kernels::for_slices(static_cast<size_t>(length), kStretch, [&](size_t b, size_t e) {
      const uint64_t k = start + b, count = e - b;
      const float* f = factors.at(k, count);
      s.zero |= lane_sums(values, codes, k, k + count, scales[g], offsets[g], f, lanes);
      s.f += factors.sum();
      s.ff += factors.sum_sq();
    });
    s.df += LaneSums::total(lanes.df);
    s.dff += LaneSums::total(lanes.dff);
    if (weighted) weighted->noise += LaneSums::total4(lanes.noise), weighted->signal += LaneSums::total4(lanes.signal);
  }
}

// Groups that are columns (or blocks of rows within columns) of a [rows, channels] matrix, the
// factor the same along each row: column sums, row by row (as the values lie in memory), the codes
// read or made (ReadCodes or MakeColumnCodes). `e` (when given) gets the sums of (value x factor)^2
// and (error x factor)^2, row by row.
template <typename Codes>
void columns(const Int8Layout& l, const uint8_t* values, const Codes& source, const float* scales, const float* offsets,
             const FactorWalk& fw, std::vector<Sums>& sums, kernels::ErrorSums* e) {
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
    const Codes codes = source;
    for (uint64_t r = begin; r < end; ++r) {
      const float f = static_cast<float>(fw.at(r * c)), ff = f * f;
      const uint64_t first = l.kind == Int8Layout::ColumnBlocks ? (r / l.block) * c : 0;
      const uint8_t* v = values + 4 * r * c;
      const float* scale = scales + first;
      const float* offset = offsets + first;
      float noise = 0, signal = 0;  // of the row (the report's: any order)
      uint64_t k = 0;
#if ONNX_SHRINK_SIMD
      // Four columns at a time: the same operations, lane by lane, as the scalar loop below.
      {
        namespace v4 = kernels::v4;
        const v4::f32 vf = v4::splat(f), vff = v4::splat(ff);
        v4::f32 row_noise = v4::splat(0), row_signal = v4::splat(0);
        for (; k + 4 <= c; k += 4) {
          const v4::f32 x = v4::load(v + 4 * k);
          const v4::f32 code = codes.column4(x, r * c + k, first + k);
          const v4::f32 u = v4::add(v4::mul(code, v4::load(reinterpret_cast<const uint8_t*>(scale + k))),
                                    v4::load(reinterpret_cast<const uint8_t*>(offset + k)));
          const v4::f32 d = v4::sub(x, u);
          uint8_t* a = reinterpret_cast<uint8_t*>(sum_df + k);
          uint8_t* b = reinterpret_cast<uint8_t*>(sum_dff + k);
          v4::store(a, v4::add(v4::load(a), v4::mul(d, vf)));
          v4::store(b, v4::add(v4::load(b), v4::mul(d, vff)));
          v4::store_i32(any_zero + k, v4::bor(v4::load_i32(any_zero + k), v4::zero_mask(x)));
          row_noise = v4::add(row_noise, v4::mul(d, d));
          row_signal = v4::add(row_signal, v4::mul(x, x));
        }
        for (int j = 0; j < 4; ++j) noise += v4::lane(row_noise, j), signal += v4::lane(row_signal, j);
      }
#endif
      for (; k < c; ++k) {
        const float x = kernels::load_f32(v + 4 * k);
        const float d = x - (codes.column(x, r * c + k, first + k) * scale[k] + offset[k]);
        sum_df[k] += d * f;
        sum_dff[k] += d * ff;
        any_zero[k] |= x == 0.0f ? -1 : 0;
        noise += d * d, signal += x * x;
      }
      if (e) e->noise += double(ff) * noise, e->signal += double(ff) * signal;
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

bool groups_are_runs(const Int8Layout& l) { return l.kind != Int8Layout::Columns && l.kind != Int8Layout::ColumnBlocks; }

namespace {

// Moves each group's offset by the mean of its errors (groups holding an exact zero stay); the
// change in the sum of squared errors.
double move_offsets(const std::vector<Sums>& sums, float* offsets) {
  // Errors (d - t) f sum to zero for t = sum d f / sum f; the squared error changes by
  // -2 t sum d f^2 + t^2 sum f^2 (with t as stored, a float).
  double change = 0;
  for (size_t g = 0; g < sums.size(); ++g) {
    const Sums& s = sums[g];
    if (s.zero || !(s.f > 0)) continue;
    const float moved = static_cast<float>(offsets[g] + s.df / s.f);
    const double t = static_cast<double>(moved) - offsets[g];
    offsets[g] = moved;
    change += -2 * t * s.dff + t * t * s.ff;
  }
  return change;
}

}  // namespace

ONNX_SHRINK_COLD double correct_offsets(const Int8Layout& l, const std::vector<int64_t>& dims, const uint8_t* values, const int8_t* codes,
                                        const float* factors, const float* scales, float* offsets, const uint8_t* low, int32_t bits,
                                        kernels::ErrorSums* weighted) {
  const uint64_t n = element_count(dims);
  std::vector<Sums> sums(l.groups);
  FactorWalk fw(factors, factors ? view_around(dims, l.factor_axis) : AxisView{});
  const bool row_factor = !factors || fw.inner % l.channels == 0;
  const ReadCodes read{codes, low, bits};
  if (!groups_are_runs(l) && row_factor) {
    columns(l, values, read, scales, offsets, fw, sums, nullptr);
  } else if (!groups_are_runs(l)) {
    for (uint64_t k = 0; k < n; ++k) {  // a factor that changes along a row (not made by the chooser)
      const uint64_t g = group_of(l, k);
      sums[g].zero |= kernels::load_f32(values + 4 * k) == 0.0f;
      accumulate(sums[g], error_at(values, codes, low, bits, k, scales[g], offsets[g]), fw.at(k), 1);
    }
  } else {
    StretchFactors stretch_factors(factors, factors ? view_around(dims, l.factor_axis) : AxisView{});
    runs(l, n, values, [&read](uint64_t) { return read; }, scales, offsets, stretch_factors, sums, weighted);
  }
  return move_offsets(sums, offsets);
}

ONNX_SHRINK_COLD double code_groups(const Int8Layout& l, const std::vector<int64_t>& dims, const uint8_t* values,
                                    const kernels::Int8Params* params, int8_t* codes, uint8_t* low, const float* factors, float* offsets,
                                    bool correct, kernels::ErrorSums& sums) {
  std::vector<float> scales(l.groups);
  for (uint64_t g = 0; g < l.groups; ++g) scales[g] = params[g].scale, offsets[g] = params[g].offset;
  std::vector<Sums> group_sums(l.groups);
  const AxisView factor_view = factors ? view_around(dims, l.factor_axis) : AxisView{};
  if (groups_are_runs(l)) {
    StretchFactors stretch_factors(factors, factor_view);
    runs(l, element_count(dims), values, [=](uint64_t g) { return MakeCodes{codes, low, params + g}; }, scales.data(), offsets,
         stretch_factors, group_sums, &sums);
  } else {
    const FactorWalk fw(factors, factor_view);
    if (factors && fw.inner % l.channels != 0) throw std::logic_error("onnx-shrink: column factors vary along a row");
    std::vector<float> inv(l.groups);
    std::vector<int32_t> zero(l.groups);
    for (uint64_t g = 0; g < l.groups; ++g) inv[g] = params[g].inv_scale, zero[g] = params[g].zero;
    const MakeColumnCodes make{codes, low, inv.data(), zero.data(), params[0].first(), params[0].last(), params[0].bits};
    columns(l, values, make, scales.data(), offsets, fw, group_sums, &sums);
  }
  return correct ? move_offsets(group_sums, offsets) : 0.0;
}

}  // namespace onnx_shrink
