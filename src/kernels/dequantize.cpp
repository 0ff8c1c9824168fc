// expand()'s kernels: a dequantization chain computed over a block of values, a step at a time
// while the block stays in cache (src/expand/evaluate.cpp). Every operation is the fp32 IEEE
// operation the graph's node does, in the graph's order, so the SIMD and scalar versions give the
// same bits, and the bits onnxruntime computes. In WebAssembly this file is built for size (it is
// not among CMakeLists.txt's KERNEL_SOURCES): the module's size budget had no room for more. The
// steps (apply_run) and int8 codes to floats have SIMD versions, 117 and 66 bytes of the gzipped
// module, for expand() of the conv stack in about 0.75x and then 0.92x the time; the low bits
// have none.
#include "kernels.h"

namespace onnx_shrink::kernels {

namespace {

// One step's operation on a value v with its operand values a (and b, for the fused pairs).
template <RunOp Op>
ONNX_SHRINK_ALWAYS_INLINE float operate(float v, float a, float b) {
  if constexpr (Op == RunOp::Mul) return v * a;
  else if constexpr (Op == RunOp::MulAdd) return v * a + b;  // two roundings (no fused multiply-add)
  else return (v - a) * b;                                   // SubMul: DequantizeLinear
}

template <RunOp Op>
void scalar_run(float* v, size_t n, const float* a, const float* b, uint64_t stride) {
  for (size_t j = 0; j < n; ++j) v[j] = operate<Op>(v[j], a[j * stride], b[j * stride]);
}

ONNX_SHRINK_ALWAYS_INLINE uint32_t log2_per_byte(uint32_t bits) { return bits == 1 ? 3 : bits == 2 ? 2 : bits == 4 ? 1 : 0; }

}  // namespace

namespace scalar {

void bytes_to_floats(const uint8_t* q, size_t n, bool is_signed, float* out) {
  if (is_signed) {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<int8_t>(q[i]));
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(q[i]);
  }
}

void apply_run(float* v, size_t n, const float* a, const float* b, uint64_t stride, RunOp op) {
  switch (op) {
    case RunOp::Mul: return scalar_run<RunOp::Mul>(v, n, a, b, stride);
    case RunOp::MulAdd: return scalar_run<RunOp::MulAdd>(v, n, a, b, stride);
    case RunOp::SubMul: return scalar_run<RunOp::SubMul>(v, n, a, b, stride);
  }
}

void add_low_bits(const uint8_t* packed, uint64_t first, size_t n, uint32_t bits, float* v) {
  const uint32_t shift = log2_per_byte(bits), digit = (1u << shift) - 1, mask = (1u << bits) - 1;
  const float unit = bits_f32(static_cast<uint32_t>(127 - bits) << 23);  // 2^-bits
  for (size_t j = 0; j < n; ++j) {
    const uint64_t i = first + j;
    v[j] += static_cast<float>((packed[i >> shift] >> (bits * (i & digit))) & mask) * unit;
  }
}

}  // namespace scalar

#if ONNX_SHRINK_SIMD
namespace simd {

void bytes_to_floats(const uint8_t* q, size_t n, bool is_signed, float* out) {
  // int8, the codes of the default's chains, four at a time (uint8, rarer, as the scalar code does).
  uint8_t* o = reinterpret_cast<uint8_t*>(out);
  size_t i = 0;
  for (; is_signed && i + 4 <= n; i += 4) v4::store(o + 4 * i, v4::load_i8x4_as_float(q + i));
  scalar::bytes_to_floats(q + i, n - i, is_signed, out + i);
}

// Four values at a time, the operands one value for the run (stride 0) or one a value (stride 1,
// the only other stride a run's innermost step has): one loop for every step, so that it costs
// the module little, its branches the same on every turn.
void apply_run(float* v, size_t n, const float* a, const float* b, uint64_t stride, RunOp op) {
  uint8_t* p = reinterpret_cast<uint8_t*>(v);
  const uint8_t *pa = reinterpret_cast<const uint8_t*>(a), *pb = reinterpret_cast<const uint8_t*>(b);
  size_t j = 0;
  if (op != RunOp::SubMul && stride <= 1) {
    // Mul as MulAdd of -0, which leaves every product as it is (a zero's sign too).
    const bool add = op == RunOp::MulAdd;
    const v4::f32 a0 = v4::splat(a[0]), b0 = v4::splat(add ? b[0] : -0.0f);
    for (; j + 4 <= n; j += 4) {
      const v4::f32 va = stride ? v4::load(pa + 4 * j) : a0, vb = stride && add ? v4::load(pb + 4 * j) : b0;
      v4::store(p + 4 * j, v4::add(v4::mul(v4::load(p + 4 * j), va), vb));
    }
  }
  scalar::apply_run(v + j, n - j, a + j * stride, b + j * stride, stride, op);
}

void add_low_bits(const uint8_t* packed, uint64_t first, size_t n, uint32_t bits, float* v) {
  scalar::add_low_bits(packed, first, n, bits, v);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
