// expand()'s chain evaluation (see evaluate.h).
#include "expand/evaluate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "int8_layout.h"
#include "kernels/kernels.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {
namespace expansion {

namespace {

// Where an operand's value for each value of a step is: the value's multi-index over `dims` with
// the operand broadcast into it, as runs of collapsed dimensions (innermost first).
struct Walk {
  static constexpr size_t kMost = 8;  // dimensions kept; a walk of more is not taken (ok false)
  uint64_t extent[kMost] = {}, stride[kMost] = {};
  size_t dims = 0;
  size_t ok = 1;  // (as wide as dims: no padding, so that same_walk can compare the bytes)
};

Walk walk_of(const std::vector<int64_t>& dims, const std::vector<int64_t>& operand) {
  Walk w;
  uint64_t step = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    const size_t back = dims.size() - 1 - i;
    const int64_t od = back < operand.size() ? operand[operand.size() - 1 - back] : 1;
    const uint64_t extent = static_cast<uint64_t>(dims[i]), stride = od == 1 ? 0 : step;
    step *= static_cast<uint64_t>(od);
    if (extent == 1) continue;
    if (w.dims && w.stride[w.dims - 1] * w.extent[w.dims - 1] == stride) {  // continues the run (or both broadcast)
      w.extent[w.dims - 1] *= extent;
    } else if (w.dims == Walk::kMost) {
      w.ok = false;
      return w;
    } else {
      w.extent[w.dims] = extent;
      w.stride[w.dims++] = stride;
    }
  }
  if (!w.dims) w.extent[0] = UINT64_MAX, w.stride[0] = 0, w.dims = 1;  // one value for all
  return w;
}

// One step (or a fused pair) over the n values from value `first` on, in place, run by run.
void apply(float* v, uint64_t n, const Walk& w, const float* a, const float* b, kernels::RunOp op, uint64_t first) {
  const size_t dims = w.dims;
  uint64_t position[Walk::kMost] = {}, offset = 0;
  for (size_t d = 0; d < dims; ++d) {
    position[d] = first % w.extent[d];
    first /= w.extent[d];
    offset += position[d] * w.stride[d];
  }
  while (n > 0) {
    const uint64_t count = std::min(w.extent[0] - position[0], n);
    kernels::apply_run(v, static_cast<size_t>(count), a + offset, b + offset, w.stride[0], op);
    v += count;
    n -= count;
    position[0] += count;
    offset += count * w.stride[0];
    for (size_t d = 0; d + 1 < dims && position[d] == w.extent[d]; ++d) {  // carry
      offset -= w.extent[d] * w.stride[d];
      position[d] = 0;
      ++position[d + 1];
      offset += w.stride[d + 1];
    }
  }
}

// A step whose operand changes every few values (a conv weight's factors along its input
// channels: one factor for each 3x3 kernel) would go run by run, a call per few values. When the
// outer dimensions only repeat it, the operand is laid out over the two inner ones instead: one
// run of extent0 x extent1 values with stride 1. The same operands for the same values.
constexpr uint64_t kShortRun = 16, kMostLaidOut = uint64_t(1) << 16;
void lay_out_short_runs(Walk& w, std::vector<float>& a, std::vector<float>& b) {
  // (Broadcast along the inner runs, the operand's next dimension has stride 1.)
  const uint64_t e = w.extent[0], width = e * w.extent[1];
  if (w.dims < 2 || w.stride[0] || e >= kShortRun || w.stride[1] != 1 || width > kMostLaidOut) return;
  for (size_t d = 2; d < w.dims; ++d) {
    if (w.stride[d]) return;
  }
  for (std::vector<float>* v : {&a, &b}) {
    if (v->empty()) continue;
    v->resize(static_cast<size_t>(width));
    // From the end: value k comes from k / e <= k, not yet overwritten.
    for (uint64_t k = width; k-- > 0;) (*v)[k] = (*v)[k / e];
  }
  w.extent[0] = width;
  w.stride[0] = 1;
  w.extent[1] = w.extent[2];  // the outer dimensions (stride 0) joined into one by walk_of
  w.extent[2] = w.stride[1] = 0;
  --w.dims;
}

bool same_walk(const Walk& x, const Walk& y) { return std::memcmp(&x, &y, sizeof x) == 0; }  // unused entries are 0

constexpr size_t kMostStages = 24;  // find_chains stops at 16 steps; a part adds 7

// Values per block of stream(): 64 KB of floats, in cache while every step runs over them.
constexpr size_t kBlock = 16384;

}  // namespace

// One step of a chain over a block (see Expander::stream): a run of Mul, MulAdd or SubMul with its
// operands, the low bits (a part), a Lookup in a table, or a Cast to float16 or bfloat16 and back.
struct Stage {
  Step::Kind kind;  // Mul, Sub (until a Mul joins it), PartBegin, Lookup or CastTo (float16, bfloat16)
  kernels::RunOp op = kernels::RunOp::Mul;
  Walk walk;
  Array a, b;  // the operands (a: the table of a Lookup); no b: a Mul or Sub the next step may join
  uint32_t bits;  // PartBegin: bits per value; CastTo: the type
};

Step::Kind step_kind(ChainOp op) { return static_cast<Step::Kind>(op); }

bool is_integer_type(int32_t t) {
  return t == onnx::kInt8 || t == onnx::kUint8 || t == onnx::kInt16 || t == onnx::kUint16 || t == onnx::kInt32 ||
         t == onnx::kInt4 || t == onnx::kUint4;
}

// Numpy broadcasting of two shapes; empty result when they do not broadcast.
bool broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>& out) {
  const size_t rank = std::max(a.size(), b.size());
  out.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

// Reads a small or large constant as floats (integers converted exactly as Cast would).
Array Expander::load(int32_t tensor) {
  const TensorInfo& t = index_.tensors[tensor];
  Array a;
  a.dims = t.dims;
  const size_t n = static_cast<size_t>(t.elements);
  a.values.resize(n);
  if (onnx::is_float_weight_type(t.data_type)) {
    const uint8_t* x = data_.floats(t);
    std::memcpy(a.values.data(), x, 4 * n);
    return a;
  }
  if (t.kind == DataKind::Int32 || t.kind == DataKind::Int64) {
    proto::Trail trail;
    size_t k = 0;
    proto::for_each_packed_varint(window_, trail, t.data.begin, t.data.end, [&](uint64_t v) {
      if (k < n) a.values[k] = integer_value(t.data_type, static_cast<int64_t>(v));
      ++k;
    });
    if (k != n) throw Error(ErrorCode::Malformed, "tensor '" + t.name + "' has the wrong number of values");
    return a;
  }
  load_codes(t, data_.raw(t), 0, n, a.values.data());
  return a;
}

// Values first ... first + n of raw integer (or float16, bfloat16) codes as floats, exactly as Cast
// converts them.
void Expander::load_codes(const TensorInfo& t, const uint8_t* raw, uint64_t first, size_t n, float* out) {
  switch (t.data_type) {  // the codes shrink() writes: kernels of their own
    case onnx::kInt8: case onnx::kUint8: return kernels::bytes_to_floats(raw + first, n, t.data_type == onnx::kInt8, out);
    case onnx::kFloat16: return kernels::halves_to_floats(raw + 2 * first, n, reinterpret_cast<uint8_t*>(out));
    case onnx::kBfloat16: return kernels::bfloats_to_floats(raw + 2 * first, n, reinterpret_cast<uint8_t*>(out));
  }
  for (size_t j = 0; j < n; ++j) {
    const uint64_t i = first + j;
    int64_t v = 0;
    switch (t.data_type) {
      case onnx::kInt16: { int16_t s; std::memcpy(&s, raw + 2 * i, 2); v = s; break; }
      case onnx::kUint16: { uint16_t s; std::memcpy(&s, raw + 2 * i, 2); v = s; break; }
      case onnx::kInt32: { int32_t s; std::memcpy(&s, raw + 4 * i, 4); v = s; break; }
      case onnx::kInt64: { int64_t s; std::memcpy(&s, raw + 8 * i, 8); v = s; break; }
      case onnx::kInt4: { const uint8_t b = raw[i / 2]; int nib = (i & 1) ? b >> 4 : b & 15; v = nib >= 8 ? nib - 16 : nib; break; }
      case onnx::kUint4: { const uint8_t b = raw[i / 2]; v = (i & 1) ? b >> 4 : b & 15; break; }
      default: throw Error(ErrorCode::Unsupported, "tensor '" + t.name + "' has a type expand does not read");
    }
    out[j] = static_cast<float>(v);
  }
}

std::vector<int64_t> Expander::load_shape(int32_t tensor) {
  const TensorInfo& t = index_.tensors[tensor];
  std::vector<int64_t> out;
  if (t.data_type != onnx::kInt64) return out;
  if (t.kind == DataKind::Int64) {
    proto::Trail trail;
    proto::for_each_packed_varint(window_, trail, t.data.begin, t.data.end,
                                  [&](uint64_t v) { out.push_back(static_cast<int64_t>(v)); });
    return out;
  }
  const uint8_t* raw = data_.raw(t);
  out.resize(static_cast<size_t>(t.elements));
  for (size_t i = 0; i < out.size(); ++i) std::memcpy(&out[i], raw + 8 * i, 8);
  return out;
}

// A Reshape's shape for a value of shape `dims` (0 copies a dimension, -1 takes the rest): false
// when it does not fit.
bool Expander::reshaped(const std::vector<int64_t>& dims, int32_t shape_tensor, std::vector<int64_t>& out) {
  out = load_shape(shape_tensor);
  if (out.empty() && index_.tensors[shape_tensor].elements != 0) return false;  // not int64
  int infer = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 0 && i < dims.size()) out[i] = dims[i];
    if (out[i] == -1) infer = static_cast<int>(i);
    else if (out[i] < 0) return false;
    else known *= static_cast<uint64_t>(out[i]);
  }
  if (infer >= 0) out[infer] = known ? static_cast<int64_t>(element_count(dims) / known) : 0;
  return element_count(out) == element_count(dims);
}

// The chain a block at a time: every step keeps the number of values (its operand broadcast into
// them, as the chains shrink() writes have it), so block [first, first + n) of the result needs
// only codes [first, first + n). A Mul and then an Add or Sub (or a Sub and then a Mul) with
// operands of one shape are one pass, as are a DequantizeLinear and the low bits of codes over 8 bits.
bool Expander::stream(const Chain& c, Sink* out, std::vector<int64_t>& dims) {
  const TensorInfo& codes = index_.tensors[c.codes];
  dims = codes.dims;
  Stage stages[kMostStages];
  size_t used = 0;
  std::vector<float> packed;  // the low bits' bytes (low_bits_stage)
  for (size_t k = 0; k < c.steps.size(); ++k) {
    const Step& s = c.steps[k];
    Stage& st = stages[used];  // (a step that joined another or that changes nothing leaves it for the next)
    st.kind = s.kind;
    if (s.kind == Step::CastTo) {
      // To float, double or integers: the same values; to float16 or bfloat16 as the last step:
      // write_values rounds them.
      if ((s.to != onnx::kFloat16 && s.to != onnx::kBfloat16) || k + 1 == c.steps.size()) continue;
      st.bits = static_cast<uint32_t>(s.to);
    } else if (s.kind == Step::Dequantize) {
      if (!dequantize_stage(s, dims, st)) return false;
    } else if (s.kind == Step::Mul || s.kind == Step::Add || s.kind == Step::Sub) {
      st.a = load(s.constant);
      std::vector<int64_t> grown;
      if (!broadcast(dims, st.a.dims, grown) || element_count(grown) != element_count(dims)) return false;
      st.walk = walk_of(grown, st.a.dims);
      dims = grown;
      Stage* last = used ? &stages[used - 1] : nullptr;
      if (last && last->b.values.empty() && same_walk(last->walk, st.walk) &&
          (s.kind == Step::Mul ? last->kind == Step::Sub : last->kind == Step::Mul)) {
        // Sub, then Mul: (v - a) * b; Mul, then Add: v * a + b; Mul, then Sub: v * a + -b (the same)
        if (s.kind == Step::Sub) for (float& x : st.a.values) x = -x;
        last->op = s.kind == Step::Mul ? kernels::RunOp::SubMul : kernels::RunOp::MulAdd;
        last->kind = Step::Mul;
        last->b.values = std::move(st.a.values);
        continue;
      }
      if (s.kind == Step::Add) return false;  // an Add alone (not a chain shrink() writes)
    } else if (s.kind == Step::Reshape) {
      std::vector<int64_t> shape;
      if (!reshaped(dims, s.constant, shape)) return false;
      dims = shape;
      continue;
    } else if (s.kind == Step::Lookup) {
      // Of the codes themselves, one byte each, in a table of 256 or more: every index is in it
      // (Gather counts negative ones from the end).
      st.a = load(s.constant);
      if (k != 1 || st.a.values.size() < 256 || (codes.data_type != onnx::kInt8 && codes.data_type != onnx::kUint8)) return false;
    } else if (s.kind != Step::PartBegin || !low_bits_stage(c, k, dims, out ? &packed : nullptr, st)) {
      return false;
    } else {
      k += static_cast<size_t>(s.block) + 1;  // the part's steps and its AddPart
    }
    if (!st.walk.ok) return false;
    ++used;
  }
  for (size_t k = 0; k < used; ++k) {
    if (stages[k].kind == Step::Sub) return false;  // a Sub alone (not a chain shrink() writes)
  }
  if (!out) return true;
  for (size_t k = 0; k < used; ++k) {
    if (stages[k].kind == Step::Mul) lay_out_short_runs(stages[k].walk, stages[k].a.values, stages[k].b.values);
  }
  // The codes: a view of their bytes, read last (valid until the next read), or all of them as
  // floats when they are not stored as raw bytes.
  const bool raw_codes = codes.kind == DataKind::Raw || codes.kind == DataKind::External;
  const Array whole = raw_codes ? Array() : load(c.codes);
  const uint8_t* raw = raw_codes ? data_.raw(codes) : nullptr;
  const uint64_t total = element_count(dims);
  float* const v = block_.resize(kBlock);
  for (uint64_t first = 0; first < total; first += kBlock) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kBlock, total - first));
    if (raw) load_codes(codes, raw, first, n, v);
    else std::memcpy(v, whole.values.data() + first, 4 * n);
    for (size_t k = 0; k < used; ++k) {
      const Stage& st = stages[k];
      if (st.kind == Step::Mul) apply(v, n, st.walk, st.a.values.data(), (st.b.values.empty() ? st.a : st.b).values.data(), st.op, first);
      else if (st.kind == Step::PartBegin) kernels::add_low_bits(reinterpret_cast<const uint8_t*>(packed.data()), first, n, st.bits, v);
      else if (st.kind == Step::Lookup) lookup(v, n, st.a);
      else round(v, n, static_cast<int32_t>(st.bits));
    }
    write_values(v, n, c.out_type, *out);
  }
  return true;
}

// DequantizeLinear as one pass: (x - zero) * scale, the scale (and zero point) per tensor, per axis,
// or per block along the axis (the axis seen as blocks x block, when the blocks divide it).
bool Expander::dequantize_stage(const Step& s, const std::vector<int64_t>& dims, Stage& st) {
  st.kind = Step::Mul;
  st.a = load(s.constant);
  if (s.zero >= 0) {
    st.b = std::move(st.a);
    st.a = load(s.zero);
    st.op = kernels::RunOp::SubMul;
    if (st.b.values.size() != st.a.values.size()) return false;
  }
  const uint64_t groups = st.a.values.size();
  const int64_t rank = static_cast<int64_t>(dims.size());
  const int64_t axis = s.axis < 0 ? s.axis + rank : s.axis;
  // The values [..., along / block, block, ...] over the scale's shape with a 1 for `block` (per
  // axis: blocks of 1, and 1 for every other dimension).
  std::vector<int64_t> view(dims), operand;
  if (groups > 1) {
    if (axis < 0 || axis >= rank) return false;
    const int64_t along = dims[axis], block = s.block > 0 ? s.block : 1;  // per axis: blocks of 1
    if (along % block || groups != (s.block > 0 ? element_count(dims) / static_cast<uint64_t>(block) : static_cast<uint64_t>(along))) return false;
    view.assign(rank + 1, 0);
    operand.assign(rank + 1, 0);
    for (int64_t d = 0; d <= rank; ++d) {
      view[d] = d < axis ? dims[d] : d == axis ? along / block : d == axis + 1 ? block : dims[d - 1];
      operand[d] = d == axis ? along / block : d == axis + 1 || s.block <= 0 ? 1 : view[d];
    }
  }
  st.walk = walk_of(view, operand);
  return true;
}

// The low bits of codes over 8 bits as one pass, when their part is the one shrink() writes:
// packed [m, 1] uint8 --Cast(float)--Div(2^(bits * j), j < 8 / bits)--Floor--Mod(2^bits)--Div(2^bits)
// --Reshape(the codes' shape), then added. The packed bytes are copied into `packed` when given.
bool Expander::low_bits_stage(const Chain& c, size_t k, const std::vector<int64_t>& dims, std::vector<float>* packed, Stage& st) {
  // (The steps are these: ExpandPlanner::part_of finds no other.)
  const Step& begin = c.steps[k];
  const TensorInfo& p = index_.tensors[begin.constant];
  const bool gathered = begin.block == 3;  // a Gather from a digit table; otherwise unpacked by arithmetic
  const int32_t to = c.steps[k + 1].to;
  if (!(gathered ? to == onnx::kInt32 || to == onnx::kInt64 : to == onnx::kFloat) || p.data_type != onnx::kUint8 ||
      (p.kind != DataKind::Raw && p.kind != DataKind::External) || p.dims.size() != 2 || p.dims[1] != 1) {
    return false;
  }
  // A digit table's bits were checked by the planner; the other form's are checked here.
  const uint32_t bits = gathered ? static_cast<uint32_t>(begin.axis)
                                 : digit_bits(c.steps[k + 2].constant, c.steps[k + 4].constant, c.steps[k + 5].constant);
  if (!bits) return false;
  const int64_t per = 8 / bits;
  std::vector<int64_t> shape;
  const std::vector<int64_t> unpacked = gathered ? std::vector<int64_t>{p.dims[0], 1, per} : std::vector<int64_t>{p.dims[0], per};
  if (!reshaped(unpacked, c.steps[k + static_cast<size_t>(begin.block)].constant, shape) || shape != dims) return false;
  if (packed) {  // bytes, in a float vector's storage (a vector of bytes here costs the module 186 bytes)
    packed->resize(static_cast<size_t>(p.dims[0] + 3) / 4);
    std::memcpy(packed->data(), data_.raw(p), static_cast<size_t>(p.dims[0]));
  }
  st.bits = bits;
  return true;
}

uint32_t Expander::digit_bits(int32_t digits_tensor, int32_t base_tensor, int32_t base2_tensor) {
  const Array digits = load(digits_tensor), base = load(base_tensor), base2 = load(base2_tensor);
  if (base.values.size() != 1 || base2.values.size() != 1 || base.values[0] != base2.values[0] || digits.dims.size() > 2) return 0;
  uint32_t bits = 1;
  while (bits < 8 && static_cast<float>(1u << bits) != base.values[0]) bits *= 2;
  const uint32_t per = 8 / bits;
  if (static_cast<float>(1u << bits) != base.values[0] || digits.values.size() != per || (!digits.dims.empty() && digits.dims.back() != per)) return 0;
  for (uint32_t j = 0; j < per; ++j) {
    if (digits.values[j] != static_cast<float>(uint64_t(1) << (bits * j))) return 0;
  }
  return bits;
}

// (Through plain pointers: this file is built for size in WebAssembly, where the vector's own
// operator[] stays a call per value.)
void Expander::lookup(float* v, size_t n, const Array& table) {
  const float* values = table.values.data();
  const float size = static_cast<float>(table.values.size());
  for (size_t j = 0; j < n; ++j) v[j] = values[static_cast<size_t>(v[j] < 0 ? v[j] + size : v[j])];
}

// Cast to float16 or bfloat16, and back.
void Expander::round(float* v, size_t n, int32_t to) {
  if (to == onnx::kFloat16) {
    for (size_t j = 0; j < n; ++j) v[j] = kernels::half_to_float(kernels::float_to_half(v[j]));
  } else {
    for (size_t j = 0; j < n; ++j) v[j] = kernels::bfloat_to_float(kernels::float_to_bfloat(v[j]));
  }
}

// n values as `type` (a float type), little-endian, to `out`: floats as they are, other types
// converted a few at a time.
void write_values(const float* v, size_t n, int32_t type, Sink& out) {
  if (type == onnx::kFloat) return out.write(v, 4 * n);
  const size_t bytes = onnx::element_bits(type) / 8;
  uint8_t buffer[4096];
  for (size_t i = 0; i < n; i += sizeof buffer / bytes) {
    const size_t m = std::min(n - i, sizeof buffer / bytes);
    for (size_t j = 0; j < m; ++j) {
      uint8_t* q = buffer + j * bytes;
      const float x = v[i + j];
      if (type == onnx::kDouble) { const double d = x; std::memcpy(q, &d, 8); }
      else { const uint16_t h = type == onnx::kFloat16 ? kernels::float_to_half(x) : kernels::float_to_bfloat(x); std::memcpy(q, &h, 2); }
    }
    out.write(buffer, m * bytes);
  }
}

float Expander::integer_value(int32_t type, int64_t v) {
  switch (type) {
    case onnx::kInt8: return static_cast<float>(static_cast<int8_t>(v));
    case onnx::kUint8: return static_cast<float>(static_cast<uint8_t>(v));
    case onnx::kInt16: return static_cast<float>(static_cast<int16_t>(v));
    case onnx::kUint16: return static_cast<float>(static_cast<uint16_t>(v));
    case onnx::kInt32: return static_cast<float>(static_cast<int32_t>(v));
    default: return static_cast<float>(v);
  }
}

}  // namespace expansion
}  // namespace onnx_shrink
