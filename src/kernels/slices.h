// Long loops as calls over slices, for WebAssembly's tiers.
//
// V8 (Chromium, Node) first runs a WebAssembly function as quickly compiled baseline code, compiles
// an optimized version in the background once the function has run a while, and switches to it
// only when the function is next called: there is no on-stack replacement. A kernel that loops over
// a whole tensor in one call therefore runs at baseline speed (several times slower for SIMD) to the
// end of that tensor, and so does the next one until the optimized code is ready. Measured on a
// 150 MB model in Node: the first shrink in a process took about 220 ms, the next ones 165 ms.
// Calling a separate function per slice lets the optimized code take over within the first tensor
// (about 200 ms for the first shrink). Natively it costs one call per slice. Slicing never changes
// a result: every slice is processed exactly as the whole would be.
#pragma once

#include <algorithm>
#include <cstddef>

#if defined(__GNUC__) || defined(__clang__)
#define ONNX_SHRINK_NOINLINE __attribute__((noinline))
#else
#define ONNX_SHRINK_NOINLINE
#endif

namespace onnx_shrink::kernels {

// One slice: a function of its own (per Body type), which the optimizing tier can replace.
template <typename Body>
ONNX_SHRINK_NOINLINE void run_slice(const Body& body, size_t begin, size_t end) {
  body(begin, end);
}

// body(begin, end) for consecutive slices of [0, n) of at most `per_slice` items, in order.
// run_slice is called from two places on purpose: Binaryen (emcc's optimizer after linking)
// inlines every function with a single call site, whatever the source asks.
template <typename Body>
inline void for_slices(size_t n, size_t per_slice, const Body& body) {
  size_t begin = 0;
  for (; n - begin > per_slice; begin += per_slice) run_slice(body, begin, begin + per_slice);
  if (begin < n) run_slice(body, begin, n);
}

// Values per slice for the kernels: 256 KB of floats, far more than a call costs.
constexpr size_t kSlice = size_t{1} << 16;

// Rows per slice of a matrix with `cols` columns: about kSlice values, at least one row.
inline size_t rows_per_slice(size_t cols) { return std::max<size_t>(1, kSlice / std::max<size_t>(cols, 1)); }

}  // namespace onnx_shrink::kernels
