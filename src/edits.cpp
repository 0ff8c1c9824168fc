#include "edits.h"

#include <iterator>
#include <stdexcept>

#include <protozero/pbf_writer.hpp>
#include <protozero/varint.hpp>

namespace onnx_shrink {

namespace {
void append_key(std::string& out, uint32_t field, int wire_type) {
  protozero::add_varint_to_buffer(&out, (uint64_t(field) << 3) | uint64_t(wire_type));
}
void check_open(const Chunk& c) {
  if (c.has_payload) throw std::logic_error("onnx-shrink: a field after a payload");
}
}  // namespace

void Message::varint(uint32_t field, uint64_t value) {
  check_open(chunk_);
  protozero::pbf_writer writer{chunk_.bytes};
  writer.add_uint64(field, value);
}

void Message::string(uint32_t field, std::string_view value) {
  check_open(chunk_);
  protozero::pbf_writer writer{chunk_.bytes};
  writer.add_bytes(field, value.data(), value.size());
}

void Message::packed_int64(uint32_t field, const std::vector<int64_t>& values) {
  check_open(chunk_);
  protozero::pbf_writer writer{chunk_.bytes};
  writer.add_packed_int64(field, values.begin(), values.end());
}

void Message::message(uint32_t field, const Message& inner) {
  check_open(chunk_);
  append_key(chunk_.bytes, field, 2);
  protozero::add_varint_to_buffer(&chunk_.bytes, inner.size());
  chunk_.bytes += inner.chunk_.bytes;
  chunk_.has_payload = inner.chunk_.has_payload;
  chunk_.payload = inner.chunk_.payload;
}

void Message::payload(uint32_t field, const Payload& payload) {
  check_open(chunk_);
  chunk_.has_payload = true;
  chunk_.payload = payload;
  if (payload.external) return;  // the message refers to it through external_data entries
  append_key(chunk_.bytes, field, 2);
  protozero::add_varint_to_buffer(&chunk_.bytes, payload.size);
}

Chunk Message::as_field(uint32_t field) const {
  Chunk c;
  append_key(c.bytes, field, 2);
  protozero::add_varint_to_buffer(&c.bytes, size());
  c.bytes += chunk_.bytes;
  c.has_payload = chunk_.has_payload;
  c.payload = chunk_.payload;
  return c;
}

}  // namespace onnx_shrink
