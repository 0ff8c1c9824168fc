// libFuzzer target: arbitrary bytes through every entry point. Any onnx_shrink::Error is a fine
// answer; a crash, a sanitizer report, a hang or any other exception is a bug.
//
// The same bytes also go through a source that is not in memory (read in slices, as files and
// Blobs are in WebAssembly): it must give the same answer, byte for byte or error for error, and
// never be asked for a range outside the file.
//
//   CXX=clang++ cmake -S . -B build-fuzz -DONNX_SHRINK_FUZZ=ON -DONNX_SHRINK_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_reader
//   build-fuzz/fuzz_reader -max_total_time=30 -max_len=300000 SEEDS/
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "onnx_shrink.h"

using namespace onnx_shrink;

namespace {

// The outcome of one run: the output bytes, or the error's code.
struct Outcome {
  std::optional<std::vector<uint8_t>> bytes;
  ErrorCode code = ErrorCode::Io;  // set by the error, when there is one
};

template <typename Run>
Outcome outcome(Run run) {
  Outcome o;
  try {
    VectorSink out;
    run(out);
    o.bytes = std::move(out.bytes);
  } catch (const Error& e) {
    o.code = e.code;
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  MemorySource memory(data, size);
  CallbackSource sliced(size, [=](uint64_t offset, void* destination, size_t length) {
    if (offset > size || length > size - offset) __builtin_trap();  // the engine broke the Source contract
    std::memcpy(destination, data + offset, length);
  });
  Options int8;
  int8.min_elements = 16;  // small tensors too, so that small inputs reach the encoders
  Options palette = int8;
  palette.mode = Mode::Palette;
  palette.levels = 16;
  Options dq = int8;
  dq.form = Form::Dq;
  Options drawn = int8;  // shifted grids (rounding_draw.cpp) with low bits on every tensor that can
  drawn.rounding_draw = 7;  // take them, and the seed's single grid, shifted
  drawn.bits = 10;
  Options seed_drawn = int8;
  seed_drawn.rounding_draw = 7;
  seed_drawn.scheme = Scheme::Tensor;
  Options budget;  // the default's bits: float16 small tensors (64 to 127 values) pay for low bits
  budget.min_elements = 128;
  for (const Options* o : {&palette, &dq, &drawn, &seed_drawn}) {
    outcome([&](Sink& out) { shrink(memory, *o, &out); });
  }
  const Outcome in_memory = outcome([&](Sink& out) { shrink(memory, budget, &out); });
  const Outcome in_slices = outcome([&](Sink& out) { shrink(sliced, budget, &out); });
  if (in_memory.bytes != in_slices.bytes || (!in_memory.bytes && in_memory.code != in_slices.code)) __builtin_trap();
  if (in_memory.bytes) {  // what it made, expanded again (the low bits' chains, the float16 tensors' Casts)
    MemorySource made(in_memory.bytes->data(), in_memory.bytes->size());
    outcome([&](Sink& out) { expand(made, out); });
  }
  const Outcome expanded = outcome([&](Sink& out) { expand(memory, out); });
  const Outcome expanded_in_slices = outcome([&](Sink& out) { expand(sliced, out); });
  if (expanded.bytes != expanded_in_slices.bytes || (!expanded.bytes && expanded.code != expanded_in_slices.code)) __builtin_trap();
  return 0;
}
