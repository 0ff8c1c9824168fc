// What a file that is not an ONNX model is, from its first bytes (see file_kind.h).
#include "file_kind.h"

#include <cstring>

namespace onnx_shrink {

std::string recognise_other_format(proto::Window& window) {
  const uint64_t n = window.size();
  if (n == 0) return "the file is empty";
  const uint8_t* p = window.at(0, static_cast<size_t>(n < 16 ? n : 16));
  auto starts = [&](const char* magic, size_t len, size_t at = 0) {
    return n >= at + len && std::memcmp(p + at, magic, len) == 0;
  };
  if (starts("\x1f\x8b", 2)) return "it is gzip-compressed: decompress it first";
  if (starts("PK\x03\x04", 4)) return "it is a zip archive (a PyTorch checkpoint or a zipped model?): extract the .onnx file first";
  if (starts("ORTM", 4, 4)) return "it is an onnxruntime ORT-format model, not an ONNX protobuf";
  if (starts("TFL3", 4, 4)) return "it is a TensorFlow Lite model";
  if (starts("\x89HDF", 4)) return "it is an HDF5 file (a Keras model?)";
  if (starts("GGUF", 4)) return "it is a GGUF file";
  if (starts("version https://git-lfs", 23)) return "it is a Git LFS pointer, not the model: fetch the real file with git lfs pull";
  if (starts("<", 1) || starts("{", 1)) return "it looks like text (HTML or JSON), not a binary model";
  if (n >= 9 && p[8] == '{') return "it looks like a safetensors file";
  return "";
}

}  // namespace onnx_shrink
