#include "wire.h"

#include <algorithm>
#include <cstring>

#include <protozero/exception.hpp>
#include <protozero/varint.hpp>

namespace onnx_shrink::proto {

Window::Window(const Source& source, size_t capacity)
    : source_(source), memory_(source.data()), size_(source.size()), capacity_(capacity) {}

const uint8_t* Window::at(uint64_t offset, size_t length) {
  // Callers check lengths against their message first; this is the last line, should one not.
  if (offset > size_ || length > size_ - offset) {
    throw Error(ErrorCode::Truncated, "a read of " + std::to_string(length) + " bytes at byte " + std::to_string(offset) +
                                          " runs past the end of the file (" + std::to_string(size_) + " bytes)");
  }
  if (memory_) return memory_ + offset;
  if (offset >= buffer_begin_ && offset + length <= buffer_end_) return buffer_.data() + (offset - buffer_begin_);
  const uint64_t want = std::max<uint64_t>(length, capacity_);
  const uint64_t n = std::min<uint64_t>(want, size_ - offset);
  buffer_.resize(static_cast<size_t>(n));
  source_.read(offset, buffer_.data(), static_cast<size_t>(n));
  buffer_begin_ = offset;
  buffer_end_ = offset + n;
  return buffer_.data();
}

std::string Window::string(uint64_t offset, size_t length) {
  const uint8_t* p = at(offset, length);
  return std::string(reinterpret_cast<const char*>(p), length);
}

std::string Trail::describe() const {
  std::string out;
  for (const Step& step : steps_) {
    if (!out.empty()) out += " > ";
    if (!step.what) {
      out += step.text;
      continue;
    }
    out += step.what;
    if (step.name) out += " '" + *step.name + "'";
    else out += " #" + std::to_string(step.number);
    if (step.detail) out += " (" + *step.detail + ")";
  }
  return out;
}

void Trail::fail(ErrorCode code, const std::string& message, uint64_t offset) const {
  std::string text = message + " (at byte " + std::to_string(offset);
  if (!steps_.empty()) text += ", in " + describe();
  text += ")";
  throw Error(code, text);
}

uint64_t FieldReader::varint(uint64_t& pos) {
  const uint64_t available = std::min<uint64_t>(end_ - pos, 10);
  if (available == 0) {
    trail_.fail(pos >= window_.size() ? ErrorCode::Truncated : ErrorCode::Malformed,
                pos >= window_.size() ? "file ends inside a field" : "field runs past the end of its message", pos);
  }
  const char* begin = reinterpret_cast<const char*>(window_.at(pos, static_cast<size_t>(available)));
  const char* p = begin;
  uint64_t value = 0;
  try {
    value = protozero::decode_varint(&p, begin + available);
  } catch (const protozero::varint_too_long_exception&) {
    trail_.fail(ErrorCode::Malformed, "varint longer than 10 bytes", pos);
  } catch (const protozero::end_of_buffer_exception&) {
    const bool at_eof = end_ >= window_.size();
    trail_.fail(at_eof ? ErrorCode::Truncated : ErrorCode::Malformed,
                at_eof ? "file ends inside a varint" : "varint runs past the end of its message", pos);
  }
  pos += static_cast<uint64_t>(p - begin);
  return value;
}

bool FieldReader::next(Field& field) {
  if (pos_ >= end_) return false;
  field.begin = pos_;
  const uint64_t tag = varint(pos_);
  const uint64_t number = tag >> 3;
  const unsigned type = static_cast<unsigned>(tag & 7);
  if (number == 0 || number > 536870911) trail_.fail(ErrorCode::Malformed, "invalid field number " + std::to_string(number), field.begin);
  field.number = static_cast<uint32_t>(number);
  field.type = static_cast<WireType>(type);
  auto need = [&](uint64_t n) {
    if (n > end_ - pos_) {
      const bool at_eof = end_ >= window_.size();
      trail_.fail(at_eof ? ErrorCode::Truncated : ErrorCode::Malformed,
                  "field " + std::to_string(number) + " needs " + std::to_string(n) + " bytes but " +
                      (at_eof ? "the file ends after " : "its message ends after ") + std::to_string(end_ - pos_),
                  field.begin);
    }
  };
  switch (field.type) {
    case WireType::Varint:
      field.data = pos_;
      field.value = varint(pos_);
      break;
    case WireType::Fixed64: {
      need(8);
      field.data = pos_;
      uint64_t v;
      std::memcpy(&v, window_.at(pos_, 8), 8);
      field.value = v;
      pos_ += 8;
      break;
    }
    case WireType::Fixed32: {
      need(4);
      field.data = pos_;
      uint32_t v;
      std::memcpy(&v, window_.at(pos_, 4), 4);
      field.value = v;
      pos_ += 4;
      break;
    }
    case WireType::Bytes: {
      const uint64_t length = varint(pos_);
      field.value = length;
      field.data = pos_;
      need(length);
      pos_ += length;
      break;
    }
    default:
      trail_.fail(ErrorCode::Malformed,
                  "unsupported protobuf wire type " + std::to_string(type) + " for field " + std::to_string(number),
                  field.begin);
  }
  field.end = pos_;
  return true;
}

std::string FieldReader::string(const Field& field, size_t limit) {
  // Only a length-delimited field has bytes to read: another type's value is no length.
  expect(field, WireType::Bytes, "a string");
  if (field.value > limit) {
    trail_.fail(ErrorCode::Malformed,
                "a " + std::to_string(field.value) + "-byte string where at most " + std::to_string(limit) + " are expected",
                field.begin);
  }
  return window_.string(field.data, static_cast<size_t>(field.value));
}

void FieldReader::expect(const Field& field, WireType type, const char* what) const {
  if (field.type != type) {
    static const char* names[] = {"varint", "fixed64", "length-delimited", "group start", "group end", "fixed32"};
    trail_.fail(ErrorCode::Malformed,
                std::string(what) + " (field " + std::to_string(field.number) + ") should be " +
                    names[static_cast<int>(type)] + " but is " + names[static_cast<int>(field.type)],
                field.begin);
  }
}

void append_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

uint64_t for_each_packed_varint(Window& window, Trail& trail, uint64_t begin, uint64_t end, VarintVisit visit) {
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
      visit.call(visit.context, value);
      ++count;
    }
    pos += i;
  }
  return count;
}

}  // namespace onnx_shrink::proto
