// Code formats (src/code_format.h): the table's facts, and every format's chain written by shrink()
// and read back by expand() on a real model.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "code_format.h"
#include "int8_layout.h"
#include "kernels/kernels.h"
#include "onnx_shrink.h"

using namespace onnx_shrink;

namespace {

const std::vector<uint8_t>& silero() {
  static const std::vector<uint8_t> bytes = [] {
    std::ifstream f(std::string(ONNX_SHRINK_FIXTURES) + "/silero_vad_v5.onnx", std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
  }();
  return bytes;
}

}  // namespace

TEST(CodeFormat, TheTableIsConsistent) {
  ASSERT_FALSE(code_formats().empty());
  uint32_t previous = 0;
  for (const CodeFormat& f : code_formats()) {
    EXPECT_EQ(f.steps(), double((uint64_t(1) << f.bits) - 1)) << f.name;
    EXPECT_EQ(f.bytes_per_value() * 8, 8.0 + f.low_bits) << f.name;  // one byte per code, and the low bits
    if (f.codebook) continue;
    EXPECT_GT(f.bits, previous) << f.name;  // by bits per value
    previous = f.bits;
    EXPECT_EQ(f.low_bits, f.bits > 8 ? f.bits - 8 : 0) << f.name;
    EXPECT_EQ(f.code_bits(), f.bits > 8 ? 8 : f.bits) << f.name;
    // The codes' range: code_bits bits, signed, inside an int8.
    EXPECT_EQ(f.code_max - f.code_min, (1 << f.code_bits()) - 1) << f.name;
    EXPECT_EQ(f.code_min, -(1 << (f.code_bits() - 1))) << f.name;
    EXPECT_EQ(format_with_bits(f.bits), &f) << f.name;
    if (f.low_bits) {
      EXPECT_EQ(f.codes_per_low_byte() * f.low_bits, 8u) << f.name;  // whole bytes of low bits
    }
    EXPECT_EQ(f.low_bytes(64), 64u * f.low_bits / 8) << f.name;
  }
  EXPECT_EQ(format_with_bits(11), nullptr);
  EXPECT_EQ(format_with_bits(1), nullptr);
  EXPECT_EQ(format_with_bits(8)->steps(), 255.0);
}

TEST(CodeFormat, RequiredOpsets) {
  EXPECT_EQ(required_opset(Form::Fold, Grouping::Axis, 0), 7);   // Cast, broadcasting Mul and Add
  EXPECT_EQ(required_opset(Form::Fold, Grouping::Axis, 2), 10);  // + Mod for the low bits
  EXPECT_EQ(required_opset(Form::Dq, Grouping::Tensor, 0), 10);
  EXPECT_EQ(required_opset(Form::Dq, Grouping::Axis, 0), 13);
  EXPECT_EQ(required_opset(Form::Dq, Grouping::Blocks, 0), 21);
  Int8Layout codebook;
  codebook.codebook = true;
  EXPECT_EQ(required_opset(codebook, Form::Fold), 7);
}

TEST(CodeFormat, ChainsUseTheSharedOpNames) {
  Int8Layout l;
  l.kind = Int8Layout::Rows;
  l.low_bits = 2;
  std::vector<std::string> ops;
  for (const Link& link : dequantize_chain(l, Form::Fold, true, true)) ops.push_back(op_type(link.op));
  EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Add", "Mul", "Add", "Reshape", "Cast"}));
  ops.clear();
  for (const Link& link : low_bits_chain()) ops.push_back(op_type(link.op));
  EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Gather", "Reshape"}));
  for (const Link& link : digit_table_chain()) ops.push_back(op_type(link.op));
  EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Gather", "Reshape", "Cast", "Div", "Floor", "Mod", "Div"}));
  for (const std::string& op : ops) {
    ChainOp back;
    ASSERT_TRUE(chain_op(op, back));
    EXPECT_EQ(op_type(back), op);
  }
  ChainOp none;
  EXPECT_FALSE(chain_op("Relu", none));
}

// The digit table's values as digit_table_chain computes them in fp32: for byte b, digit j of its
// `low_bits`-bit digits over 2^low_bits (8 / low_bits digits a byte, row by row).
static std::vector<float> digit_table(uint32_t low_bits) {
  const uint32_t per = 8 / low_bits;
  const float base = static_cast<float>(1u << low_bits);
  std::vector<float> table(256 * per);
  for (uint32_t b = 0; b < 256; ++b) {
    for (uint32_t j = 0; j < per; ++j) {
      const float digit = std::floor(static_cast<float>(b) / static_cast<float>(1u << (j * low_bits)));  // Div, Floor
      table[b * per + j] = std::fmod(digit, base) / base;                                                  // Mod, Div
    }
  }
  return table;
}

// The digit table a Gather reads the low bits from holds what expand() adds for them
// (kernels::add_low_bits), for every byte and digit of every width of low bits.
TEST(CodeFormat, DigitTableIsWhatExpandAdds) {
  for (uint32_t bits : {1u, 2u, 4u, 8u}) {
    const uint32_t per = 8 / bits;
    const std::vector<float> table = digit_table(bits);
    ASSERT_EQ(table.size(), 256u * per);
    std::vector<uint8_t> packed(256);
    for (int b = 0; b < 256; ++b) packed[b] = static_cast<uint8_t>(b);
    std::vector<float> added(256 * per, 0.0f);
    kernels::add_low_bits(packed.data(), 0, added.size(), bits, added.data());
    EXPECT_EQ(table, added) << bits << " bits";
    EXPECT_EQ(table[255 * per + per - 1], 1.0f - 1.0f / static_cast<float>(1u << bits)) << bits << " bits";  // the largest digit
  }
}

// For every format: shrink() writes its chain, expand() recognises every one of them, and the
// stored size the planner estimates is what the file holds, less the nodes and names around it.
TEST(CodeFormat, EveryFormatsChainIsWrittenAndExpanded) {
  struct Case {
    const char* what;
    Options options;
  };
  std::vector<Case> cases;
  for (const CodeFormat& f : code_formats()) {
    if (f.codebook) continue;
    Options o;
    o.bits = f.bits;
    o.small = SmallTensors::Keep;
    cases.push_back({f.name, o});
  }
  Options dq;
  dq.form = Form::Dq;
  cases.push_back({"dq", dq});
  Options automatic;  // silero's STFT basis gets a codebook
  cases.push_back({"auto", automatic});
  bool codebook_seen = false;
  int64_t plain_rest = 0;  // the first case's: 8 bits
  for (const Case& c : cases) {
    MemorySource source(silero().data(), silero().size());
    VectorSink shrunk;
    const Report made = shrink(source, c.options, &shrunk);
    ASSERT_GT(made.tensors_changed, 0u) << c.what;
    uint32_t with_bits = 0;
    int64_t names = 0, low_bits_allowance = 0;
    for (const TensorReport& t : made.tensors) {
      codebook_seen = codebook_seen || t.scheme == "codebook";
      if (!t.changed) continue;
      names += static_cast<int64_t>(t.name.size());
      // Every tensor gets the bits asked for, or keeps 8 (a codebook's codes).
      if (c.options.bits) {
        EXPECT_TRUE(t.bits == c.options.bits || (t.bits == 8 && t.scheme == "codebook")) << t.name << ' ' << t.bits;
      }
      with_bits += t.bits == c.options.bits;
      // What bit allocation budgets for a tensor's low-bits nodes and constants (bit_allocation.cpp).
      if (t.bits > 8) low_bits_allowance += 350 + 14 * 2 + static_cast<int64_t>(t.name.size() + 8 * t.shape.size());
    }
    if (c.options.bits) {
      EXPECT_GE(with_bits, 10u) << c.what;
    }
    // What replaces the weights, counted by stored_bytes(), plus the nodes, names and field headers
    // around it: at most 400 bytes a tensor and 32 times its name (which the stored tensors' names,
    // the nodes' names, inputs and outputs repeat: about 20 times on silero). The low bits' nodes
    // and constants: no more than bit allocation budgets for them (its "never larger" rests on it).
    const int64_t rest = static_cast<int64_t>(made.model_bytes_after) -
                         static_cast<int64_t>(made.model_bytes_before - made.weight_bytes_before - made.small_tensor_bytes +
                                              made.weight_bytes_after + made.small_tensor_bytes_after);
    EXPECT_GE(rest, 0) << c.what;
    EXPECT_LE(rest, 400 * static_cast<int64_t>(made.tensors_changed + made.small_tensors_fp16) + 32 * names) << c.what;
    if (c.options.bits == 8) plain_rest = rest;
    if (c.options.bits > 8) {
      EXPECT_LE(rest - plain_rest, low_bits_allowance) << c.what;
    }
    MemorySource back(shrunk.bytes.data(), shrunk.bytes.size());
    VectorSink expanded;
    const Report r = expand(back, expanded);
    EXPECT_EQ(r.tensors_changed, made.tensors_changed + made.small_tensors_fp16) << c.what;
    EXPECT_NEAR(static_cast<double>(expanded.bytes.size()), static_cast<double>(silero().size()), 150.0 * r.tensors_changed) << c.what;
  }
  EXPECT_TRUE(codebook_seen);
}

// Fewer than 8 bits: codes in a narrower range (their entropy at most the bits), about 6 dB of
// SQNR per bit; tensor_bits sets them per tensor, and names only tensors of the model.
TEST(CodeFormat, FewerBitsAndBitsPerTensor) {
  auto run = [](const Options& o) {
    MemorySource source(silero().data(), silero().size());
    return shrink(source, o, nullptr);
  };
  Options eight;
  eight.bits = 8;
  const Report r8 = run(eight);
  std::string first;
  for (const TensorReport& t : r8.tensors) {
    if (t.changed && t.scheme != "codebook" && first.empty()) first = t.name;
  }
  ASSERT_FALSE(first.empty());
  for (uint32_t bits = 2; bits < 8; ++bits) {
    Options o;
    o.bits = bits;
    const Report r = run(o);
    for (size_t k = 0; k < r.tensors.size(); ++k) {
      const TensorReport& t = r.tensors[k];
      if (!t.changed) continue;
      EXPECT_EQ(t.bits, bits) << t.name;
      EXPECT_NE(t.scheme, "codebook") << t.name;  // codebooks have 8-bit codes
      const double per_value = 8.0 * double(t.entropy_bytes) / double(t.bytes_before / 4);
      EXPECT_LE(per_value, bits + 0.01) << t.name;
      EXPECT_GT(per_value, 0.5 * bits) << t.name;
      if (r8.tensors[k].scheme != "codebook") {
        // Each bit fewer costs about 6 dB (at 2 and 3 bits the step-squared-over-12 rule is rougher:
        // most values of a peaked distribution round to the few codes near zero).
        const double expected = r8.tensors[k].sqnr_db - 6.02 * (8 - bits);
        EXPECT_NEAR(t.sqnr_db, expected, bits <= 3 ? 6.0 : 3.0) << t.name << ' ' << bits;
      }
    }
  }
  Options one;
  one.tensor_bits = {{first, 4}};
  const Report r = run(one);
  for (const TensorReport& t : r.tensors) {
    if (t.changed) {
      EXPECT_EQ(t.bits == 4, t.name == first) << t.name << ' ' << t.bits;
    }
  }
  Options wrong;
  wrong.tensor_bits = {{"no such tensor", 4}};
  try {
    run(wrong);
    FAIL() << "an unknown name was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code, ErrorCode::BadOption);
    EXPECT_NE(std::string(e.what()).find("the model has no float tensor named 'no such tensor'"), std::string::npos) << e.what();
  }
  Options range;
  range.tensor_bits = {{first, 11}};
  try {
    run(range);
    FAIL() << "11 bits were taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code, ErrorCode::BadOption);
    EXPECT_NE(std::string(e.what()).find("tensor bits: no such bits for '" + first + "'"), std::string::npos) << e.what();
  }
}
