// The code formats' table and the facts derived from it (see code_format.h).
#include "code_format.h"

#include "int8_layout.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

namespace {
const CodeFormat kFormats[] = {
    // name     bits low  codebook  code type     code range
    // Fewer than 8 bits: one int8 per value still (the same chain, at any opset), in a narrower
    // range, so the stored bytes compress to about their entropy (gzip, brotli) — about `bits` bits.
    {"int2", 2, 0, false, onnx::kInt8, -2, 1},
    {"int3", 3, 0, false, onnx::kInt8, -4, 3},
    {"int4", 4, 0, false, onnx::kInt8, -8, 7},
    {"int5", 5, 0, false, onnx::kInt8, -16, 15},
    {"int6", 6, 0, false, onnx::kInt8, -32, 31},
    {"int7", 7, 0, false, onnx::kInt8, -64, 63},
    {"int8", 8, 0, false, onnx::kInt8, -128, 127},
    {"int8+1", 9, 1, false, onnx::kInt8, -128, 127},
    {"int8+2", 10, 2, false, onnx::kInt8, -128, 127},
    {"int8+4", 12, 4, false, onnx::kInt8, -128, 127},
    {"int8+8", 16, 8, false, onnx::kInt8, -128, 127},
    {"codebook", 8, 0, true, onnx::kUint8, 0, 255},
};
}  // namespace

CodeFormats code_formats() { return {kFormats, sizeof kFormats / sizeof kFormats[0]}; }

const CodeFormat* format_with_bits(uint32_t bits) {
  for (const CodeFormat& f : code_formats()) {
    if (f.bits == bits && !f.codebook) return &f;
  }
  return nullptr;
}

const CodeFormat& format_of(const Int8Layout& l) {
  for (const CodeFormat& f : code_formats()) {
    if (l.codebook ? f.codebook : !f.codebook && f.bits == l.code_bits + static_cast<uint32_t>(l.low_bits)) return f;
  }
  return *format_with_bits(8);  // (unreachable: the planner only gives bits of the table's formats)
}

Grouping grouping_of(const Int8Layout& l) {
  if (l.kind == Int8Layout::RowBlocks || l.kind == Int8Layout::ColumnBlocks) return Grouping::Blocks;
  return l.kind == Int8Layout::Tensor || l.seed ? Grouping::Tensor : Grouping::Axis;
}

int64_t required_opset(Form form, Grouping grouping, uint32_t low_bits) {
  if (form == Form::Fold) return low_bits ? 10 : 7;
  return grouping == Grouping::Blocks ? 21 : grouping == Grouping::Axis ? 13 : 10;
}

int64_t required_opset(const Int8Layout& l, Form form) {
  return l.codebook ? 7 : required_opset(form, grouping_of(l), static_cast<uint32_t>(l.low_bits));
}

uint64_t stored_bytes(const Int8Layout& l, Form form, const std::vector<int64_t>& dims, uint64_t elements) {
  const CodeFormat& f = format_of(l);
  const uint64_t g = l.groups;
  uint64_t n = elements + 4 * l.factor_count();
  n += l.codebook ? 4 * 256 : 4 * g + (form == Form::Fold ? 4 * g : g);  // table, or scales and offsets / zero points
  if (l.code_dims != dims) n += 8 * dims.size();                          // the Reshape's shape
  // The packed bits and their three constants (digits, base, shape).
  if (f.low_bits) n += f.low_bytes(elements) + 4 * uint64_t(f.codes_per_low_byte()) + 4 + 8 * l.code_dims.size();
  return n;
}

namespace {
const char* const kOpTypes[] = {"Cast", "DequantizeLinear", "Mul", "Add", "Sub", "Div", "Mod", "Floor", "Reshape", "Gather"};
}

const char* op_type(ChainOp op) { return kOpTypes[static_cast<size_t>(op)]; }

bool chain_op(const std::string& type, ChainOp& op) {
  for (size_t k = 0; k < sizeof kOpTypes / sizeof kOpTypes[0]; ++k) {
    if (type == kOpTypes[k]) {
      op = static_cast<ChainOp>(k);
      return true;
    }
  }
  return false;
}

std::vector<Link> dequantize_chain(const Int8Layout& l, Form form, bool reshape, bool cast_back) {
  std::vector<Link> chain;
  if (l.codebook) {
    chain.push_back({ChainOp::Cast, Link::None, onnx::kInt32});
    chain.push_back({ChainOp::Gather, Link::Table});
  } else if (form == Form::Fold) {
    chain.push_back({ChainOp::Cast, Link::None, onnx::kFloat});
    if (l.low_bits) chain.push_back({ChainOp::Add, Link::LowBits});
    chain.push_back({ChainOp::Mul, Link::Scale});
    chain.push_back({ChainOp::Add, Link::Offset});
  } else {
    chain.push_back({ChainOp::DequantizeLinear, Link::Scale});  // and the zero point
  }
  if (reshape) chain.push_back({ChainOp::Reshape, Link::Shape});
  if (l.factor_count()) chain.push_back({ChainOp::Mul, Link::Factors});
  if (cast_back) chain.push_back({ChainOp::Cast, Link::None, 0});
  return chain;
}

std::vector<Link> low_bits_chain() {
  return {{ChainOp::Cast, Link::None, onnx::kInt32}, {ChainOp::Gather, Link::DigitTable}, {ChainOp::Reshape, Link::Shape}};
}

std::vector<Link> digit_table_chain() {
  return {{ChainOp::Cast, Link::None, onnx::kFloat}, {ChainOp::Div, Link::Digits}, {ChainOp::Floor, Link::None},
          {ChainOp::Mod, Link::Base}, {ChainOp::Div, Link::Base}};
}

}  // namespace onnx_shrink
