// Functions that run once per tensor or per model, in files built for speed (their loops over
// values call the kernels): built for size in WebAssembly, where every kilobyte of the module is
// downloaded (bench/: they cost no measurable speed, and 3 KB of the gzipped module). Natively
// nothing changes.
#pragma once

#if defined(__EMSCRIPTEN__)
#define ONNX_SHRINK_COLD __attribute__((minsize))
#else
#define ONNX_SHRINK_COLD
#endif
