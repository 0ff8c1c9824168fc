// The output, described as edits of the input: byte ranges replaced by new bytes.
//
// Everything the planner decides becomes a list of edits; the writer copies the input around them.
// New bytes are literal protobuf (nodes, small tensors, headers) and payloads: tensor data the
// encoder produces while writing, whose size is known in advance. Knowing every size before the
// first byte is written lets the writer fix the length prefix of every enclosing message up front
// and stream the output in one pass.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace onnx_shrink {

enum class PayloadKind : uint8_t {
  Codes,       // int8 codes of an item (encodes the item; its scales etc. follow)
  LowBits,     // uint8: the low bits of the item's codes, 8 / low_bits codes per byte (see plan)
  Half,        // a small float32 tensor's values as float16
  Scales,      // float32 scales of the item just encoded
  Offsets,     // float32 offsets (Cast -> Mul -> Add form)
  ZeroPoints,  // int8 zero points (DequantizeLinear form)
  Factors,     // float32 factors along an axis (separable scales, codebook slices)
  Table,       // float32 codebook of 256 levels
  Palette,     // palettized values in the tensor's own type
  Copy,        // the tensor's data unchanged, as raw bytes (moving between inline and external)
  Expanded,    // expand(): the float values of a dequantization chain
};

struct Payload {
  PayloadKind kind = PayloadKind::Copy;
  int32_t item = -1;  // the plan item (or, for Copy, the tensor index)
  uint64_t size = 0;
  bool external = false;         // written to the external data sink instead
  uint64_t external_offset = 0;  // where, in the external file (padding precedes it)
};

// Protobuf bytes, optionally ending with a payload written later.
struct Chunk {
  std::string bytes;
  bool has_payload = false;
  Payload payload;
  uint64_t size() const { return bytes.size() + (has_payload && !payload.external ? payload.size : 0); }
};

struct Edit {
  uint64_t begin = 0, end = 0;  // input range replaced; begin == end inserts
  int32_t container = -1;       // innermost container enclosing the range (-1: the ModelProto)
  std::vector<Chunk> chunks;
  uint64_t size() const {
    uint64_t n = 0;
    for (const Chunk& c : chunks) n += c.size();
    return n;
  }
};

// Builds one protobuf message; a payload may only come last.
class Message {
 public:
  void varint(uint32_t field, uint64_t value);
  void string(uint32_t field, std::string_view value);
  void packed_int64(uint32_t field, const std::vector<int64_t>& values);
  // Appends `inner` as a length-delimited field, taking over its payload.
  void message(uint32_t field, const Message& inner);
  // A bytes field whose content is `payload` (unless it is external).
  void payload(uint32_t field, const Payload& payload);
  uint64_t size() const { return chunk_.size(); }
  // The message as the content of field `field` of its parent.
  Chunk as_field(uint32_t field) const;
  const Chunk& chunk() const { return chunk_; }

 private:
  Chunk chunk_;
};

}  // namespace onnx_shrink
