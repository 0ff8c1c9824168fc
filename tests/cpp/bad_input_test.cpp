// Bad input: every kind gives an Error naming what is wrong, never a crash, and the input bytes
// are never modified.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "onnx_shrink.h"
#include "plan.h"
#include "proto/onnx_fields.h"

using namespace onnx_shrink;

namespace {

std::vector<uint8_t> load(const std::string& name) {
  std::ifstream f(std::string(ONNX_SHRINK_FIXTURES) + "/" + name, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

// Runs shrink and returns the error code (or nullopt-like -1 on success). The input must be
// unchanged afterwards.
int attempt(const std::vector<uint8_t>& bytes, const Options& o = Options(), const Io& io = {}, std::string* message = nullptr) {
  const std::vector<uint8_t> copy = bytes;
  MemorySource source(bytes.data(), bytes.size());
  VectorSink out;
  int code = -1;
  try {
    shrink(source, o, &out, io);
  } catch (const Error& e) {
    code = static_cast<int>(e.code);
    if (message) *message = e.what();
    EXPECT_GT(std::strlen(e.what()), 10u);
  }
  EXPECT_EQ(bytes, copy);
  return code;
}

std::string field(uint32_t number, const std::string& payload) {
  std::string s;
  proto::append_varint(s, (uint64_t(number) << 3) | 2);
  proto::append_varint(s, payload.size());
  return s + payload;
}
std::string varint_field(uint32_t number, uint64_t v) {
  std::string s;
  proto::append_varint(s, uint64_t(number) << 3);
  proto::append_varint(s, v);
  return s;
}

// A small valid model: one MatMul reading a 64x512 float initializer.
std::string tiny_model(const std::string& tensor) {
  const std::string node = field(1, "x") + field(1, "w") + field(2, "y") + field(4, "MatMul");
  const std::string graph = field(1, node) + field(2, "g") + field(5, tensor);
  const std::string opset = field(1, "") + varint_field(2, 13);
  return varint_field(1, 8) + field(8, opset) + field(7, graph);
}
std::string float_tensor(const std::vector<int64_t>& dims, size_t data_bytes, const std::string& extra = "") {
  std::string t;
  for (int64_t d : dims) t += varint_field(1, static_cast<uint64_t>(d));
  t += varint_field(2, 1) + field(8, "w") + extra;
  if (data_bytes) t += field(9, std::string(data_bytes, '\x01'));
  return t;
}
std::vector<uint8_t> bytes_of(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

}  // namespace

namespace {
// The external data file `name` and no other.
struct OneFile final : ExternalResolver {
  OneFile(std::string name, const Source* source) : name(std::move(name)), source(source) {}
  const Source* find(const std::string& location) override { return location == name ? source : nullptr; }
  std::string name;
  const Source* source;
};
}  // namespace

TEST(BadInput, TheTinyModelIsValid) {
  EXPECT_EQ(attempt(bytes_of(tiny_model(float_tensor({64, 512}, 4 * 64 * 512)))), -1);
}

TEST(BadInput, NotOnnxFilesAreRecognised) {
  std::string message;
  EXPECT_EQ(attempt({}, Options(), {}, &message), static_cast<int>(ErrorCode::NotOnnx));
  EXPECT_NE(message.find("empty"), std::string::npos);
  EXPECT_EQ(attempt(bytes_of("\x1f\x8b\x08\x00 gzip data"), Options(), {}, &message), static_cast<int>(ErrorCode::NotOnnx));
  EXPECT_NE(message.find("gzip"), std::string::npos);
  EXPECT_EQ(attempt(bytes_of("PK\x03\x04 zip"), Options(), {}, &message), static_cast<int>(ErrorCode::NotOnnx));
  EXPECT_EQ(attempt(bytes_of("<!DOCTYPE html><html>"), Options(), {}, &message), static_cast<int>(ErrorCode::NotOnnx));
  EXPECT_EQ(attempt(bytes_of("version https://git-lfs.github.com/spec/v1\noid sha256:abc"), Options(), {}, &message),
            static_cast<int>(ErrorCode::NotOnnx));
  EXPECT_NE(message.find("LFS"), std::string::npos);
  std::mt19937 rng(5);
  for (int i = 0; i < 50; ++i) {
    std::vector<uint8_t> noise(1 + rng() % 5000);
    for (uint8_t& b : noise) b = static_cast<uint8_t>(rng());
    const int code = attempt(noise);
    EXPECT_NE(code, -1);
  }
}

TEST(BadInput, TruncationAtEveryCutPointOfASmallModel) {
  const std::string model = tiny_model(float_tensor({64, 512}, 4 * 64 * 512));
  // Every cut inside the structure, and a sample inside the tensor data.
  for (size_t cut = 0; cut < model.size(); cut += cut < 200 || cut > model.size() - 200 ? 1 : 997) {
    const int code = attempt(bytes_of(model.substr(0, cut)));
    EXPECT_TRUE(code == static_cast<int>(ErrorCode::Truncated) || code == static_cast<int>(ErrorCode::NotOnnx) ||
                code == static_cast<int>(ErrorCode::Malformed))
        << "cut " << cut << " code " << code;
  }
}

TEST(BadInput, TruncatedRealModels) {
  for (const char* name : {"silero_vad_v5.onnx", "ch_PP-OCRv4_det_infer.onnx"}) {
    const std::vector<uint8_t> model = load(name);
    std::mt19937 rng(9);
    for (int i = 0; i < 60; ++i) {
      const size_t cut = i < 20 ? static_cast<size_t>(i) : rng() % model.size();
      const std::vector<uint8_t> part(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(cut));
      EXPECT_NE(attempt(part), -1) << name << " cut at " << cut;
    }
  }
}

TEST(BadInput, CorruptedBytesNeverCrash) {
  const std::vector<uint8_t> model = load("silero_vad_v5.onnx");
  std::mt19937 rng(21);
  for (int i = 0; i < 200; ++i) {
    std::vector<uint8_t> bad = model;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) bad[rng() % 4096] = static_cast<uint8_t>(rng());  // the structure lives up front
    attempt(bad);  // may succeed (a harmless flip) or fail with an Error; must not crash
  }
}

TEST(BadInput, DimsThatDisagreeWithTheData) {
  std::string message;
  EXPECT_EQ(attempt(bytes_of(tiny_model(float_tensor({64, 512}, 4 * 64 * 511))), Options(), {}, &message),
            static_cast<int>(ErrorCode::Malformed));
  EXPECT_NE(message.find("'w'"), std::string::npos) << message;
  EXPECT_NE(message.find("raw_data"), std::string::npos) << message;
}

TEST(BadInput, AbsurdAndNegativeDimensions) {
  std::string t;
  for (uint64_t d : {uint64_t(1) << 40, uint64_t(1) << 40}) t += varint_field(1, d);
  t += varint_field(2, 1) + field(8, "w") + field(9, "abcd");
  std::string message;
  EXPECT_EQ(attempt(bytes_of(tiny_model(t)), Options(), {}, &message), static_cast<int>(ErrorCode::Malformed));
  EXPECT_NE(message.find("absurd"), std::string::npos) << message;
  std::string neg = varint_field(1, static_cast<uint64_t>(int64_t(-4))) + varint_field(2, 1) + field(8, "w");
  EXPECT_EQ(attempt(bytes_of(tiny_model(neg)), Options(), {}, &message), static_cast<int>(ErrorCode::Malformed));
  EXPECT_NE(message.find("negative"), std::string::npos) << message;
}

TEST(BadInput, UnknownDataTypesAreLeftAlone) {
  std::string t = varint_field(1, 64) + varint_field(1, 512) + varint_field(2, 99) + field(8, "w") + field(9, "xyz");
  EXPECT_EQ(attempt(bytes_of(tiny_model(t))), -1);  // not a float weight: copied as it is
}

TEST(BadInput, AbsurdNesting) {
  // Graphs nested 40 deep through If attributes.
  std::string graph = field(2, "leaf");
  for (int i = 0; i < 40; ++i) {
    const std::string attribute = field(1, "then_branch") + varint_field(20, 5) + field(6, graph);
    const std::string node = field(2, "o" + std::to_string(i)) + field(4, "If") + field(5, attribute);
    graph = field(1, node);
  }
  const std::string model = varint_field(1, 8) + field(8, field(1, "") + varint_field(2, 13)) + field(7, graph);
  std::string message;
  EXPECT_EQ(attempt(bytes_of(model), Options(), {}, &message), static_cast<int>(ErrorCode::Unsupported));
  EXPECT_NE(message.find("nested"), std::string::npos) << message;
}

TEST(BadInput, ExternalDataProblemsNameTheTensorAndFile) {
  auto external = [](const std::string& offset, const std::string& length) {
    std::string entries = field(13, field(1, "location") + field(2, "w.data")) + field(13, field(1, "offset") + field(2, offset));
    if (!length.empty()) entries += field(13, field(1, "length") + field(2, length));
    return float_tensor({64, 512}, 0, entries + varint_field(14, 1));
  };
  const std::vector<uint8_t> model = bytes_of(tiny_model(external("0", std::to_string(4 * 64 * 512))));
  std::string message;
  EXPECT_EQ(attempt(model, Options(), {}, &message), static_cast<int>(ErrorCode::ExternalDataMissing));
  EXPECT_NE(message.find("w.data"), std::string::npos) << message;
  EXPECT_NE(message.find("'w'"), std::string::npos) << message;

  std::vector<uint8_t> short_file(1000, 0);
  MemorySource data(short_file.data(), short_file.size());
  OneFile file("w.data", &data);
  Io io;
  io.external = &file;
  EXPECT_EQ(attempt(model, Options(), io, &message), static_cast<int>(ErrorCode::ExternalDataInvalid));
  EXPECT_NE(message.find("only 1000 bytes"), std::string::npos) << message;

  EXPECT_EQ(attempt(bytes_of(tiny_model(external("0", "12"))), Options(), io, &message),
            static_cast<int>(ErrorCode::ExternalDataInvalid));
  EXPECT_EQ(attempt(bytes_of(tiny_model(external("12x", ""))), Options(), io, &message), static_cast<int>(ErrorCode::Malformed));
}

TEST(BadInput, AStringFieldOfAnotherWireTypeIsNoLength) {
  // Found by the fuzzer: an external_data key written as a varint (4000) was read as a 4000-byte
  // string, past the end of the file.
  const std::string entries = field(13, varint_field(1, 4000) + field(2, "w.data")) + varint_field(14, 1);
  std::string message;
  EXPECT_EQ(attempt(bytes_of(tiny_model(float_tensor({64, 512}, 0, entries))), Options(), {}, &message),
            static_cast<int>(ErrorCode::Malformed));
  EXPECT_NE(message.find("StringStringEntryProto.key"), std::string::npos) << message;
  const std::string value = field(13, field(1, "location") + varint_field(2, 4000)) + varint_field(14, 1);
  EXPECT_EQ(attempt(bytes_of(tiny_model(float_tensor({64, 512}, 0, value))), Options(), {}, &message),
            static_cast<int>(ErrorCode::Malformed));
  EXPECT_NE(message.find("StringStringEntryProto.value"), std::string::npos) << message;
}

TEST(BadInput, NaNWeightsAreLeftAlone) {
  std::string data(4 * 64 * 512, '\0');
  const float nan = NAN;
  std::memcpy(&data[4 * 1000], &nan, 4);
  std::string t = varint_field(1, 64) + varint_field(1, 512) + varint_field(2, 1) + field(8, "w") + field(9, data);
  MemorySource source(nullptr, 0);
  const std::string model = tiny_model(t);
  MemorySource m(model.data(), model.size());
  VectorSink out;
  const Report r = shrink(m, Options(), &out);
  ASSERT_EQ(r.tensors.size(), 1u);
  EXPECT_FALSE(r.tensors[0].changed);
  EXPECT_EQ(r.tensors[0].reason, "contains NaN or infinity");
  EXPECT_EQ(std::string(out.bytes.begin(), out.bytes.end()), model);
}

// A result past the 2 GB protobuf limit is refused before a byte is written, when the weights must
// stay inline: 520 palette tensors of 4 MiB in external data (read from a source that makes the
// bytes up: nothing of that size is held in memory).
TEST(BadInput, ResultsPastTwoGigabytesAreRefusedInline) {
  const uint64_t tensor_bytes = 4ull << 20, count = 520;
  std::string graph = field(1, field(1, "x") + field(1, "w0") + field(2, "y") + field(4, "MatMul")) + field(2, "g");
  for (uint64_t i = 0; i < count; ++i) {
    const std::string entries = field(13, field(1, "location") + field(2, "w.data")) +
                                field(13, field(1, "offset") + field(2, std::to_string(i * tensor_bytes))) +
                                field(13, field(1, "length") + field(2, std::to_string(tensor_bytes)));
    graph += field(5, varint_field(1, 1024) + varint_field(1, 1024) + varint_field(2, 1) + field(8, "w" + std::to_string(i)) +
                          entries + varint_field(14, 1));
  }
  const std::string model = varint_field(1, 8) + field(8, field(1, "") + varint_field(2, 13)) + field(7, graph);
  std::vector<float> pattern(1 << 20);
  for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<float>(i % 977) * 1e-3f - 0.4f;
  CallbackSource data(count * tensor_bytes, [&](uint64_t offset, void* destination, size_t length) {
    for (size_t done = 0; done < length;) {
      const size_t at = static_cast<size_t>((offset + done) % tensor_bytes), n = std::min(length - done, static_cast<size_t>(tensor_bytes) - at);
      std::memcpy(static_cast<uint8_t*>(destination) + done, reinterpret_cast<const uint8_t*>(pattern.data()) + at, n);
      done += n;
    }
  });
  OneFile file("w.data", &data);
  Io io;
  io.external = &file;
  Options o;
  o.mode = Mode::Palette;
  o.external = ExternalData::Inline;
  const std::vector<uint8_t> bytes = bytes_of(model);
  MemorySource source(bytes.data(), bytes.size());
  VectorSink out;
  try {
    shrink(source, o, &out, io);
    ADD_FAILURE() << "a 2.2 GB inline result was not refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.code, ErrorCode::TooLarge);
    EXPECT_NE(std::string(e.what()).find("2 GB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("external data"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(out.bytes.empty());  // nothing written
}

namespace {
std::string graph_model(const std::string& nodes, const std::string& initializers) {
  const std::string graph = nodes + field(2, "g") + initializers;
  return varint_field(1, 8) + field(8, field(1, "") + varint_field(2, 13)) + field(7, graph);
}
std::string node(const std::string& op, const std::vector<std::string>& inputs, const std::string& output, const std::string& extra = "") {
  std::string n;
  for (const std::string& i : inputs) n += field(1, i);
  return field(1, n + field(2, output) + field(4, op) + extra);
}
std::string cast_to_float() { return field(5, field(1, "to") + varint_field(3, 1) + varint_field(20, 2)); }
}  // namespace

// Names read by many nodes at each step of a Cast/Identity chain (an output name given many
// times, as no valid graph has): the channel axis is looked for through them, which once took the
// product of the counts in time (200^4 readers here: minutes for an 80 KB file).
TEST(BadInput, ReadersThatFanOutAreLookedThroughInBoundedTime) {
  std::string nodes = node("Cast", {"w"}, "a", cast_to_float());
  const char* names[] = {"a", "b", "c", "d", "e"};
  for (int level = 0; level < 4; ++level) {
    for (int k = 0; k < 200; ++k) nodes += node("Identity", {names[level]}, names[level + 1]);
  }
  const std::string model = graph_model(nodes, field(5, float_tensor({64, 512}, 4 * 64 * 512)));
  MemorySource source(model.data(), model.size());
  VectorSink out;
  const Report r = shrink(source, Options(), &out);
  ASSERT_EQ(r.tensors.size(), 1u);
  EXPECT_TRUE(r.tensors[0].changed);
}

// A dequantization chain that loops back on itself (its last Mul writes the name the Cast writes):
// expand() once followed it until memory ran out.
TEST(BadInput, AChainThatLoopsBackEndsInExpand) {
  std::string codes = varint_field(1, 64) + varint_field(1, 512) + varint_field(2, 3) + field(8, "codes") + field(9, std::string(64 * 512, '\x01'));
  std::string scale = varint_field(2, 1) + field(8, "s") + field(9, std::string("\0\0\x80\x3f", 4));
  const std::string nodes = node("Cast", {"codes"}, "a", cast_to_float()) + node("Mul", {"a", "s"}, "b") + node("Mul", {"b", "s"}, "a");
  const std::string model = graph_model(nodes, field(5, codes) + field(5, scale));
  MemorySource source(model.data(), model.size());
  VectorSink out;
  const Report r = expand(source, out);
  EXPECT_FALSE(r.unchanged);
  ASSERT_EQ(r.tensors.size(), 1u);
  EXPECT_EQ(r.tensors[0].bytes_after, 4u * 64 * 512);  // the codes became floats, once
}

// Two tensors of one graph with one name (no valid model has them): which one a node reads is
// unknown, so both are left alone, with the reason. (Their consumers were once gathered by scanning
// every reader of the name per tensor: thousands of them took seconds, and more, minutes.)
TEST(BadInput, ANameGivenToTwoTensorsOfAGraphLeavesBothAlone) {
  const std::string w = field(5, float_tensor({64, 512}, 4 * 64 * 512));
  const std::string model = graph_model(node("MatMul", {"x", "w"}, "y"), w + w);
  MemorySource source(model.data(), model.size());
  VectorSink out;
  const Report r = shrink(source, Options(), &out);
  ASSERT_EQ(r.tensors.size(), 2u);
  for (const TensorReport& t : r.tensors) {
    EXPECT_FALSE(t.changed);
    EXPECT_EQ(t.reason, "its name is given to another tensor of the same graph");
  }
  EXPECT_EQ(std::string(out.bytes.begin(), out.bytes.end()), model);
}
