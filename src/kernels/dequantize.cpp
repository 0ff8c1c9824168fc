// expand()'s kernels: a dequantization chain computed over a block of values, a step at a time
// while the block stays in cache (src/expand/evaluate.cpp). Every operation is the fp32 IEEE
// operation the graph's node does, in the graph's order, so the SIMD and scalar versions give the
// same bits, and the bits onnxruntime computes. In WebAssembly this file is built for size (it is
// not among CMakeLists.txt's KERNEL_SOURCES): the module's size budget had no room for more.
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
  scalar::bytes_to_floats(q, n, is_signed, out);
}

// These run over a block in cache, at a few instructions a value: their SIMD versions (written, and
// measured at about 1.4x the speed in WebAssembly) cost 600 bytes of the gzipped module that its
// size budget did not have.
void apply_run(float* v, size_t n, const float* a, const float* b, uint64_t stride, RunOp op) {
  scalar::apply_run(v, n, a, b, stride, op);
}

void add_low_bits(const uint8_t* packed, uint64_t first, size_t n, uint32_t bits, float* v) {
  scalar::add_low_bits(packed, first, n, bits, v);
}

}  // namespace simd
#endif

}  // namespace onnx_shrink::kernels
