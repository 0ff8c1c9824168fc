// expand()'s chain evaluation (see evaluate.h).
#include "expand/evaluate.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/kernels.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {
namespace expansion {

namespace {

// Where an operand's value for each value of a step is: the value's multi-index over `dims` with
// the operand broadcast into it, as runs of collapsed dimensions (innermost first).
struct Walk {
  static constexpr size_t kMost = 8;  // dimensions kept; a walk of more is not taken (ok false)
  uint64_t extent[kMost], stride[kMost];
  size_t dims = 0;
  bool ok = true;
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

// a op c for a binary step. Mod (fmod) only ever sees whole numbers (part_of): its remainder is
// then exact this way.
inline float combine(float a, float c, Step::Kind kind) {
  return kind == Step::Mul ? a * c : kind == Step::Add ? a + c : kind == Step::Sub ? a - c : kind == Step::Div ? a / c
                                                                                   : a - c * std::trunc(a / c);
}

// value[j] = value[j] op operand[j * stride] for a run (stride 0: one operand value).
void run(float* v, const float* p, uint64_t stride, uint64_t n, Step::Kind kind) {
  for (uint64_t j = 0; j < n; ++j) v[j] = combine(v[j], p[j * stride], kind);
}

// One binary step over the n values, in place.
void apply(float* v, uint64_t n, const Walk& w, const float* operand, Step::Kind kind) {
  const size_t dims = w.dims;
  uint64_t position[Walk::kMost] = {}, offset = 0;
  while (n > 0) {
    const uint64_t count = std::min(w.extent[0] - position[0], n);
    run(v, operand + offset, w.stride[0], count, kind);
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

}  // namespace

Step::Kind step_kind(ChainOp op) {
  switch (op) {
    case ChainOp::Cast: return Step::CastTo;
    case ChainOp::DequantizeLinear: return Step::Dequantize;
    case ChainOp::Mul: return Step::Mul;
    case ChainOp::Add: return Step::Add;
    case ChainOp::Sub: return Step::Sub;
    case ChainOp::Div: return Step::Div;
    case ChainOp::Mod: return Step::Mod;
    case ChainOp::Floor: return Step::Floor;
    case ChainOp::Reshape: return Step::Reshape;
    case ChainOp::Gather: return Step::Lookup;
  }
  return Step::Floor;  // (every op is listed above)
}

uint64_t count(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);
  return n;
}

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
  const uint8_t* raw = data_.raw(t);
  float* out = a.values.data();
  if (t.data_type == onnx::kInt8) {  // the codes shrink() writes: a loop of their own
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<int8_t>(raw[i]));
    return a;
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t v = 0;
    switch (t.data_type) {
      case onnx::kUint8: v = raw[i]; break;
      case onnx::kInt16: { int16_t s; std::memcpy(&s, raw + 2 * i, 2); v = s; break; }
      case onnx::kUint16: { uint16_t s; std::memcpy(&s, raw + 2 * i, 2); v = s; break; }
      case onnx::kInt32: { int32_t s; std::memcpy(&s, raw + 4 * i, 4); v = s; break; }
      case onnx::kInt64: { int64_t s; std::memcpy(&s, raw + 8 * i, 8); v = s; break; }
      case onnx::kInt4: { const uint8_t b = raw[i / 2]; int nib = (i & 1) ? b >> 4 : b & 15; v = nib >= 8 ? nib - 16 : nib; break; }
      case onnx::kUint4: { const uint8_t b = raw[i / 2]; v = (i & 1) ? b >> 4 : b & 15; break; }
      default: throw Error(ErrorCode::Unsupported, "tensor '" + t.name + "' has a type expand does not read");
    }
    out[i] = static_cast<float>(v);
  }
  return a;
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

// Evaluates a chain, returning the final values as floats.
Array Expander::evaluate(const Chain& c) {
  Array x, aside;
  x = load(c.codes);
  for (const Step& s : c.steps) {
    switch (s.kind) {
      case Step::Dequantize: dequantize(x, s); break;
      case Step::CastTo: cast(x, s.to); break;
      case Step::Mul: case Step::Add: case Step::Sub: case Step::Div: case Step::Mod: binary(x, load(s.constant), s.kind); break;
      case Step::Floor: for (float& v : x.values) v = std::floor(v); break;
      case Step::Reshape: x.dims = resolve_shape(x, load_shape(s.constant), c); break;
      case Step::Lookup: lookup(x, load(s.constant), c); break;
      case Step::PartBegin: aside = std::move(x), x = load(s.constant); break;
      case Step::AddPart: binary(aside, x, Step::Add), x = std::move(aside); break;
    }
  }
  return x;
}

std::vector<int64_t> Expander::resolve_shape(const Array& x, std::vector<int64_t> shape, const Chain& c) {
  int infer = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0 && i < x.dims.size()) shape[i] = x.dims[i];
    if (shape[i] == -1) infer = static_cast<int>(i);
    else known *= static_cast<uint64_t>(std::max<int64_t>(shape[i], 0));
  }
  if (infer >= 0 && known) shape[infer] = static_cast<int64_t>(x.values.size() / known);
  if (count(shape) != x.values.size()) {
    throw Error(ErrorCode::Malformed, "the Reshape producing '" + c.output + "' does not fit its input");
  }
  return shape;
}

void Expander::lookup(Array& x, const Array& table, const Chain& c) {
  for (float& v : x.values) {
    const float index = v < 0 ? v + static_cast<float>(table.values.size()) : v;  // Gather counts from the end
    if (!(index >= 0) || index >= static_cast<float>(table.values.size())) {
      throw Error(ErrorCode::Malformed, "the Gather producing '" + c.output + "' indexes past its table");
    }
    v = table.values[static_cast<size_t>(index)];
  }
}

void Expander::cast(Array& x, int32_t to) {
  if (!onnx::is_float_weight_type(to)) return;  // integer codes to integer indices: same values
  for (float& v : x.values) {
    if (to == onnx::kFloat16) v = kernels::half_to_float(kernels::float_to_half(v));
    else if (to == onnx::kBfloat16) v = kernels::bfloat_to_float(kernels::float_to_bfloat(v));
  }
}

void Expander::binary(Array& x, const Array& b, Step::Kind kind) {
  std::vector<int64_t> out;
  broadcast(x.dims, b.dims, out);
  // As many values as before (the operand broadcast into them, as the chains shrink() writes have
  // it): in place, run by run. (Value by value through a multi-index, expand() ran at 40 MB/s.)
  const Walk w = walk_of(out, b.dims);
  if (count(out) == x.values.size() && w.ok) {
    apply(x.values.data(), x.values.size(), w, b.values.data(), kind);
    x.dims = out;
    return;
  }
  const size_t rank = out.size();
  // Strides of each operand in the output's index space (0 where broadcast).
  auto strides = [&](const std::vector<int64_t>& dims) {
    std::vector<uint64_t> s(rank, 0);
    uint64_t step = 1;
    for (size_t i = dims.size(); i-- > 0;) {
      const size_t o = i + (rank - dims.size());
      s[o] = dims[i] == 1 ? 0 : step;
      step *= static_cast<uint64_t>(dims[i]);
    }
    return s;
  };
  const std::vector<uint64_t> sa = strides(x.dims), sb = strides(b.dims);
  const uint64_t n = count(out);
  std::vector<float> result(static_cast<size_t>(n));
  std::vector<int64_t> index(rank, 0);
  uint64_t ia = 0, ib = 0;
  for (uint64_t k = 0; k < n; ++k) {
    const float a = x.values[ia], c = b.values[ib];
    result[k] = combine(a, c, kind);
    for (size_t d = rank; d-- > 0;) {  // advance the multi-index
      ia += sa[d];
      ib += sb[d];
      if (++index[d] < out[d]) break;
      ia -= sa[d] * static_cast<uint64_t>(out[d]);
      ib -= sb[d] * static_cast<uint64_t>(out[d]);
      index[d] = 0;
    }
  }
  x.dims = out;
  x.values.swap(result);
}

void Expander::dequantize(Array& x, const Step& s) {
  const Array scale = load(s.constant);
  Array zero;
  if (s.zero >= 0) zero = load(s.zero);
  const size_t rank = x.dims.size();
  const int64_t axis = s.axis < 0 ? s.axis + static_cast<int64_t>(rank) : s.axis;
  uint64_t outer = 1, inner = 1, along = 1;
  if (scale.values.size() > 1) {
    for (size_t d = 0; d < rank; ++d) {
      if (static_cast<int64_t>(d) < axis) outer *= x.dims[d];
      else if (static_cast<int64_t>(d) == axis) along = x.dims[d];
      else inner *= x.dims[d];
    }
  } else {
    along = x.values.size();
  }
  // The scale index of element (o, a, i): per tensor 0; per axis a; blocked o-major with a / block.
  const uint64_t blocks = s.block > 0 ? (along + s.block - 1) / s.block : 1;
  for (uint64_t o = 0; o < outer; ++o) {
    for (uint64_t a = 0; a < along; ++a) {
      for (uint64_t i = 0; i < inner; ++i) {
        const uint64_t k = (o * along + a) * inner + i;
        uint64_t g = 0;
        if (scale.values.size() > 1) g = s.block > 0 ? (o * blocks + a / s.block) * inner + i : a;
        const float z = zero.values.empty() ? 0.0f : zero.values[g];
        x.values[k] = (x.values[k] - z) * scale.values[g];
      }
    }
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
