// The protobuf wire layer: fields, varints and the errors malformed bytes produce; and the order
// of the tables the index's names are looked up in (name_order.h).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "name_order.h"
#include "proto/wire.h"

using onnx_shrink::CallbackSource;
using onnx_shrink::Error;
using onnx_shrink::ErrorCode;
using onnx_shrink::MemorySource;
using namespace onnx_shrink::proto;

namespace {

std::string key(uint32_t field, int type) {
  std::string s;
  append_varint(s, (uint64_t(field) << 3) | uint64_t(type));
  return s;
}

std::vector<Field> read_all(const std::string& bytes, Trail& trail) {
  MemorySource source(bytes.data(), bytes.size());
  Window window(source);
  FieldReader reader(window, trail, 0, bytes.size());
  std::vector<Field> out;
  Field f;
  while (reader.next(f)) out.push_back(f);
  return out;
}

ErrorCode code_of(const std::string& bytes) {
  Trail trail;
  try {
    read_all(bytes, trail);
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("at byte"), std::string::npos) << e.what();
    return e.code;
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::Io;
}

}  // namespace

TEST(Wire, VarintsRoundTrip) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 300ull, 16383ull, 16384ull, 1ull << 35, ~0ull}) {
    std::string s = key(1, 0);
    append_varint(s, v);
    EXPECT_EQ(varint_size(v), s.size() - 1);
    Trail trail;
    const auto fields = read_all(s, trail);
    ASSERT_EQ(fields.size(), 1u);
    EXPECT_EQ(fields[0].number, 1u);
    EXPECT_EQ(fields[0].value, v);
  }
}

TEST(Wire, FieldsOfEveryWireType) {
  std::string s = key(1, 0) + "\x05" + key(2, 1) + std::string(8, '\x01') + key(3, 2) + "\x03" + "abc" + key(4, 5) +
                  std::string(4, '\x02');
  Trail trail;
  const auto f = read_all(s, trail);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].value, 5u);
  EXPECT_EQ(f[1].value, 0x0101010101010101ull);
  EXPECT_EQ(f[2].value, 3u);
  EXPECT_EQ(f[2].end - f[2].data, 3u);
  EXPECT_EQ(f[3].value, 0x02020202u);
}

TEST(Wire, MalformedInputGivesNamedErrors) {
  EXPECT_EQ(code_of(key(1, 0) + "\x80"), ErrorCode::Truncated);                 // varint cut by the end
  EXPECT_EQ(code_of(key(1, 2) + "\x0a" + "abc"), ErrorCode::Truncated);         // length past the end
  EXPECT_EQ(code_of(key(1, 3)), ErrorCode::Malformed);                          // group wire type
  EXPECT_EQ(code_of(std::string("\x00", 1)), ErrorCode::Malformed);             // field number 0
  EXPECT_EQ(code_of(key(1, 0) + std::string(11, '\xff')), ErrorCode::Malformed);  // varint too long
  EXPECT_EQ(code_of(key(1, 1) + "abc"), ErrorCode::Truncated);                  // fixed64 cut
}

TEST(Wire, NestedLengthPastItsMessageIsMalformed) {
  // An inner message claims more bytes than its parent holds.
  const std::string inner = key(1, 2) + "\x09" + "abc";
  const std::string outer = key(7, 2) + std::string(1, static_cast<char>(inner.size())) + inner + "tail-bytes";
  MemorySource source(outer.data(), outer.size());
  Window window(source);
  Trail trail;
  FieldReader reader(window, trail, 0, outer.size());
  Field f;
  ASSERT_TRUE(reader.next(f));
  FieldReader inside(window, trail, f.data, f.end);
  Field g;
  try {
    inside.next(g);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code, ErrorCode::Malformed);
  }
}

TEST(Wire, TrailNamesWhereAnErrorHappened) {
  Trail trail;
  trail.push("graph 'main'");
  trail.push("node 'Conv_0' (Conv)");
  try {
    trail.fail(ErrorCode::Malformed, "bad thing", 42);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "bad thing (at byte 42, in graph 'main' > node 'Conv_0' (Conv))");
  }
}

TEST(Wire, TrailStepsMadeOfPartsAreWrittenOutOnlyOnError) {
  Trail trail;
  const std::string graph = "main", op = "Conv", attribute = "pads";
  std::string node = "Conv_0";
  trail.push("graph", &graph);
  trail.push("node", &node, 3, &op);
  trail.push("node", nullptr, 7, &op);
  trail.push("attribute", &attribute);
  node = "renamed";  // the parts are read when the error is reported
  try {
    trail.fail(ErrorCode::Malformed, "bad thing", 42);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "bad thing (at byte 42, in graph 'main' > node 'renamed' (Conv) > node #7 (Conv) > attribute 'pads')");
  }
}

TEST(Wire, PackedVarintsAcrossChunks) {
  // Over a megabyte of packed varints, so that decoding crosses chunk boundaries.
  std::string payload;
  std::vector<uint64_t> values;
  for (uint64_t i = 0; payload.size() < (size_t(5) << 19); ++i) {
    const uint64_t v = (i * 2654435761u) & 0xfffff;
    values.push_back(v);
    append_varint(payload, v);
  }
  for (bool windowed : {false, true}) {
    MemorySource memory(payload.data(), payload.size());
    CallbackSource sliced(payload.size(), [&](uint64_t offset, void* dst, size_t len) { std::memcpy(dst, payload.data() + offset, len); });
    const onnx_shrink::Source& source = windowed ? static_cast<const onnx_shrink::Source&>(sliced) : memory;
    Window window(source, 4096);
    Trail trail;
    std::vector<uint64_t> got;
    for_each_packed_varint(window, trail, 0, payload.size(), [&](uint64_t v) { got.push_back(v); });
    EXPECT_EQ(got, values);
  }
  // A varint cut off by the end of its field.
  std::string cut = payload.substr(0, 100) + "\x80";
  MemorySource source(cut.data(), cut.size());
  Window window(source);
  Trail trail;
  EXPECT_THROW(for_each_packed_varint(window, trail, 0, cut.size(), [](uint64_t) {}), Error);
}

TEST(Wire, WindowedReadsSeeTheSameBytes) {
  std::string data(3 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 31 + (i >> 11));
  int reads = 0;
  CallbackSource source(data.size(), [&](uint64_t offset, void* dst, size_t len) {
    ++reads;
    std::memcpy(dst, data.data() + offset, len);
  });
  Window window(source, 1 << 16);
  for (uint64_t offset : {0ull, 65530ull, 1000000ull, 3145000ull}) {
    const size_t len = 700;
    const uint8_t* p = window.at(offset, len);
    EXPECT_EQ(std::memcmp(p, data.data() + offset, len), 0) << offset;
  }
  // A read larger than the window is served whole.
  const uint8_t* big = window.at(10, 1 << 20);
  EXPECT_EQ(std::memcmp(big, data.data() + 10, 1 << 20), 0);
  EXPECT_LE(reads, 6);
}

TEST(NameOrder, ShorterFirstThenBytesAndEveryNameFoundInATable) {
  const onnx_shrink::NameOrder less;
  EXPECT_TRUE(less("zz", "aaa"));  // by length first, not alphabetically
  EXPECT_FALSE(less("aaa", "zz"));
  EXPECT_TRUE(less("abc", "abd"));
  EXPECT_FALSE(less("abd", "abc"));
  EXPECT_FALSE(less("abc", "abc"));
  EXPECT_FALSE(less("", ""));
  EXPECT_TRUE(less("", "a"));
  // Names as exporters write them: long shared prefixes, lengths that repeat, bytes past 127.
  std::map<std::string, int, onnx_shrink::NameOrder> table;
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) {
    std::string name = "If_0_then_branch__Inline_0__/encoder/" + std::to_string(i % 97) + "/Conv_" + std::to_string(i);
    if (i % 5 == 0) name += "\xc3\xa9";
    names.push_back(name);
    table[name] = i;
  }
  ASSERT_EQ(table.size(), names.size());
  for (int i = 0; i < 3000; ++i) {
    auto it = table.find(names[i]);
    ASSERT_NE(it, table.end()) << names[i];
    EXPECT_EQ(it->second, i);
  }
  EXPECT_EQ(table.count("If_0_then_branch__Inline_0__/encoder/1/Conv_2"), 0u);
}
