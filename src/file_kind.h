// What a file that is not an ONNX model is, from its first bytes.
#pragma once

#include <string>

#include "proto/wire.h"

namespace onnx_shrink {

// Recognises files people mistake for ONNX models (gzip, zip, ORT format, TFLite, HDF5, GGUF, a
// Git LFS pointer, text, safetensors), to say what they are instead: "it is ...: do ...", or "".
std::string recognise_other_format(proto::Window& window);

}  // namespace onnx_shrink
