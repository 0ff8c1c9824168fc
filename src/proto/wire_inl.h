// Template part of wire.h.
#pragma once

#include <algorithm>

namespace onnx_shrink::proto {

template <typename Visit>
uint64_t for_each_packed_varint(Window& window, Trail& trail, uint64_t begin, uint64_t end, Visit visit) {
  constexpr uint64_t kChunk = uint64_t(1) << 20;
  constexpr size_t kMaxVarint = 10;
  uint64_t count = 0;
  uint64_t pos = begin;
  while (pos < end) {
    // Decode a megabyte at a time so that a windowed source is read in slices. A varint never
    // starts in the last 10 bytes of a chunk unless the chunk ends the field, so none straddles.
    const bool last = end - pos <= kChunk;
    const size_t chunk = static_cast<size_t>(last ? end - pos : kChunk);
    const size_t stop = last ? chunk : chunk - kMaxVarint;
    const uint8_t* p = window.at(pos, chunk);
    size_t i = 0;
    while (i < stop) {
      uint64_t value = 0;
      unsigned shift = 0;
      const size_t start = i;
      for (;;) {
        if (i >= chunk) trail.fail(ErrorCode::Malformed, "packed varint runs past the end of its field", pos + start);
        if (shift >= 64) trail.fail(ErrorCode::Malformed, "varint longer than 10 bytes", pos + start);
        const uint8_t b = p[i++];
        value |= uint64_t(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
      }
      visit(value);
      ++count;
    }
    pos += i;
  }
  return count;
}

}  // namespace onnx_shrink::proto
