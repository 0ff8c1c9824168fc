// libFuzzer target: arbitrary bytes through every entry point. Any onnx_shrink::Error is a fine
// answer; a crash, a sanitizer report, a hang or any other exception is a bug.
//
//   CXX=clang++ cmake -S . -B build-fuzz -DONNX_SHRINK_FUZZ=ON -DONNX_SHRINK_TESTS=OFF
//   cmake --build build-fuzz --target fuzz_reader
//   build-fuzz/fuzz_reader -max_total_time=30 -max_len=300000 SEEDS/
#include <cstddef>
#include <cstdint>

#include "onnx_shrink.h"

using namespace onnx_shrink;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  MemorySource source(data, size);
  Options int8;
  int8.min_elements = 16;  // small tensors too, so that small inputs reach the encoders
  Options palette = int8;
  palette.mode = Mode::Palette;
  palette.levels = 16;
  Options dq = int8;
  dq.form = Form::Dq;
  for (const Options* o : {&int8, &palette, &dq}) {
    try {
      VectorSink out;
      shrink(source, *o, &out);
    } catch (const Error&) {
    }
  }
  try {
    VectorSink out;
    expand(source, out);
  } catch (const Error&) {
  }
  return 0;
}
