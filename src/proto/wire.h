// Protobuf wire format, read through a Source without copying payloads.
//
// A model can be bigger than the memory we may use (a File in a browser, a 5 GB file in Node), so
// the structure walk reads only tags, lengths and small fields, through a cached window, and
// records where large payloads (tensor data) are instead of reading them. When the source is in
// memory the window is the whole source and every access is a view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../byte_buffer.h"
#include "../onnx_shrink.h"

namespace onnx_shrink::proto {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Bytes = 2, StartGroup = 3, EndGroup = 4, Fixed32 = 5 };

struct Field {
  uint32_t number = 0;
  WireType type = WireType::Varint;
  uint64_t value = 0;  // the varint or fixed value; for Bytes the payload length
  uint64_t begin = 0;  // offset of the tag
  uint64_t data = 0;   // offset of the payload (Bytes) or of the value
  uint64_t end = 0;    // offset just after the field
};

// Cached random access to a Source. Reads at least `capacity` bytes at a time: 64 KB holds many
// small messages, and the read after a skipped tensor (the next field header) costs little
// (1 MB windows read a megabyte of the next tensor's data for every tensor passed).
class Window {
 public:
  explicit Window(const Source& source, size_t capacity = size_t(1) << 16);
  uint64_t size() const { return size_; }
  const Source& source() const { return source_; }
  // At least `length` bytes at `offset`, which must lie inside the source. Valid until the next
  // call (forever when the source is in memory).
  const uint8_t* at(uint64_t offset, size_t length);
  std::string string(uint64_t offset, size_t length);

 private:
  const Source& source_;
  const uint8_t* memory_;
  uint64_t size_;
  size_t capacity_;
  ByteBuffer buffer_;
  uint64_t buffer_begin_ = 0, buffer_end_ = 0;
};

// Describes where the reader is, for error messages ("graph 'main' > node 'Conv_0' (Conv) > ...").
// A step named by strings the reader holds anyway is kept as pointers and written out only when
// an error is reported: the index passes every node and attribute, and making their text each
// time was a tenth of a small model's expand() in wasm.
class Trail {
 public:
  void push(std::string step) { steps_.push_back({std::move(step)}); }
  // The step `what` '*name' (`what` #number when name is null), then ` (*detail)` when detail is given.
  // The strings must outlive the step.
  void push(const char* what, const std::string* name, uint64_t number = 0, const std::string* detail = nullptr) {
    steps_.push_back({std::string(), what, name, number, detail});
  }
  void pop() { steps_.pop_back(); }
  size_t depth() const { return steps_.size(); }
  std::string describe() const;
  // Throws Error(code) with `message`, the byte offset and the trail.
  [[noreturn]] void fail(ErrorCode code, const std::string& message, uint64_t offset) const;

 private:
  struct Step {
    std::string text;  // a step given as text; otherwise the parts below
    const char* what = nullptr;
    const std::string* name = nullptr;
    uint64_t number = 0;
    const std::string* detail = nullptr;
  };
  std::vector<Step> steps_;
};

// RAII step of a Trail.
class TrailStep {
 public:
  TrailStep(Trail& trail, std::string step) : trail_(trail) { trail_.push(std::move(step)); }
  TrailStep(Trail& trail, const char* what, const std::string* name, uint64_t number = 0, const std::string* detail = nullptr)
      : trail_(trail) {
    trail_.push(what, name, number, detail);
  }
  ~TrailStep() { trail_.pop(); }
  TrailStep(const TrailStep&) = delete;
  TrailStep& operator=(const TrailStep&) = delete;

 private:
  Trail& trail_;
};

// Iterates the fields of one message that occupies [begin, end) of the window's source.
class FieldReader {
 public:
  FieldReader(Window& window, Trail& trail, uint64_t begin, uint64_t end)
      : window_(window), trail_(trail), pos_(begin), end_(end) {}
  // Reads the next field; false at the end of the message. Throws Error on malformed input.
  bool next(Field& field);
  // The payload of a Bytes field as a string (refuses payloads over `limit` bytes).
  std::string string(const Field& field, size_t limit = size_t(1) << 20);
  // Checks the field has the wire type ONNX declares for it.
  void expect(const Field& field, WireType type, const char* what) const;
  Window& window() { return window_; }
  Trail& trail() { return trail_; }

 private:
  uint64_t varint(uint64_t& pos);
  Window& window_;
  Trail& trail_;
  uint64_t pos_, end_;
};

// Decodes the packed varints in [begin, end) of `window`, calling visit(value) for each.
// Returns the count. Throws Error(Malformed) if a varint runs past `end`.
template <typename Visit>
uint64_t for_each_packed_varint(Window& window, Trail& trail, uint64_t begin, uint64_t end, Visit visit);

// The same with the visit as a function and its context (what the template above passes).
struct VarintVisit {
  void* context;
  void (*call)(void* context, uint64_t value);
};
uint64_t for_each_packed_varint(Window& window, Trail& trail, uint64_t begin, uint64_t end, VarintVisit visit);

// Size in bytes of `value` encoded as a varint.
inline size_t varint_size(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

// Appends `value` as a varint.
void append_varint(std::string& out, uint64_t value);

}  // namespace onnx_shrink::proto

#include "wire_inl.h"
