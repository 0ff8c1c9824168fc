// Code formats: how a weight's values are stored as integer codes, and the nodes that turn the codes
// back into floats.
//
// Each format is one row of the table in code_format.cpp (ggml's traits table is the model): its
// bits, code type and steps. The planner lays out and emits a weight's chain from it, the encoder
// and the error estimates take their step count from it, expand() reads chains with the same op
// vocabulary, and the stored size and the opset a chain needs are one function each, here.
//
//   fold form      codes --Cast(float)--[+ low bits]--Mul(scale)--Add(offset)--[Reshape]--[Mul(factors)]--[Cast back]
//   codebook       codes --Cast(int32)--Gather(table, .)--[Reshape]--Mul(factors)--[Cast back]
//   dq form        codes --DequantizeLinear(scale, zero point)--[Reshape]--[Mul(factors)]--[Cast back]
//   low bits       packed --Cast(int32)--Gather(digit table, .)--Reshape   (added after the codes' Cast)
//   digit table    bytes 0..255 --Cast(float)--Div(digits)--Floor--Mod(base)--Div(base)   (one per graph and width)
//
// The digit table holds, for every byte, its digits of `low_bits` bits over 2^low_bits: what the
// low bits add to a code. onnxruntime folds it over 256 bytes, and each weight's low bits then in
// one Gather: 2 nodes over every value, where unpacking the packed bytes arithmetically took 5
// (session creation from PP-OCR det's default output 1.62-1.77 -> 1.31-1.34 times the original's,
// BENCHMARKS.md; files made before 2026-11-27 unpack that way, and expand() still reads them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_shrink.h"

namespace onnx_shrink {

struct Int8Layout;

struct CodeFormat {
  const char* name;   // "int2" ... "int7", "int8", "int8+1" (9 bits), "int8+2", "int8+4", "int8+8", "codebook"
  uint32_t bits;      // bits per value (below 8: codes in a narrower range, still one byte each)
  uint32_t low_bits;  // of those, the ones below the stored 8-bit code, packed apart (8 / low_bits per byte)
  bool codebook;      // the code indexes a table of 256 float levels
  int32_t code_type;  // ONNX type of the stored codes (int8; uint8 for a codebook)
  int32_t code_min, code_max;  // the range of the codes (one byte per value)

  // Bits of the stored code itself: `bits` up to 8, then 8 (the rest are low bits).
  uint32_t code_bits() const { return bits - low_bits; }

  // Steps between the lowest and the highest code: 255 for 8 bits.
  double steps() const { return static_cast<double>((uint64_t(1) << bits) - 1); }
  // Bytes of the packed low bits of `elements` values.
  uint64_t low_bytes(uint64_t elements) const { return elements * low_bits / 8; }
  // Bytes stored per value: the code's byte and its share of a byte of low bits.
  double bytes_per_value() const { return 1.0 + low_bits / 8.0; }
  // Codes held by one byte of low bits (0 without low bits).
  uint32_t codes_per_low_byte() const { return low_bits ? 8 / low_bits : 0; }
};

// The table: every format, by bits per value (the codebook last).
struct CodeFormats {
  const CodeFormat* first;
  size_t count;
  const CodeFormat* begin() const { return first; }
  const CodeFormat* end() const { return first + count; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  const CodeFormat& operator[](size_t k) const { return first[k]; }
};
CodeFormats code_formats();
// The format of `bits` per value (2 ... 8, 9, 10, 12, 16), or nullptr: what Options::bits may name.
const CodeFormat* format_with_bits(uint32_t bits);
// The format of a layout (its low bits, or its codebook).
const CodeFormat& format_of(const Int8Layout& l);

// How values share scales: what decides the DequantizeLinear form's opset.
enum class Grouping : uint8_t { Tensor, Axis, Blocks };
Grouping grouping_of(const Int8Layout& l);

// The default-domain opset a chain needs: the fold form 7 (broadcasting Mul and Add), 10 with low
// bits (Mod); DequantizeLinear per tensor 10, per axis 13, with blocks 21.
int64_t required_opset(Form form, Grouping grouping, uint32_t low_bits);
int64_t required_opset(const Int8Layout& l, Form form);

// The data bytes of everything stored in place of a tensor of `elements` values and shape `dims`:
// codes, low bits and their constants, scales, offsets or zero points, factors, table, shape.
uint64_t stored_bytes(const Int8Layout& l, Form form, const std::vector<int64_t>& dims, uint64_t elements);

// The ops of the chains, by name: the planner writes them, expand() reads them.
enum class ChainOp : uint8_t { Cast, DequantizeLinear, Mul, Add, Sub, Div, Mod, Floor, Reshape, Gather };
const char* op_type(ChainOp op);
// The ChainOp of an ai.onnx op type; false for any other op.
bool chain_op(const std::string& op_type, ChainOp& op);

// One node of a chain: its op, and what its second operand is.
struct Link {
  enum Operand : uint8_t { None, LowBits, Scale, Offset, ZeroPoint, Table, Shape, Factors, Digits, Base, DigitTable, kOperands };
  ChainOp op;
  Operand operand;
  int32_t to = 0;  // Cast: the ONNX type (0: the tensor's own type, for the Cast back)
};
// The chain that turns a layout's codes into the tensor: `reshape` when the codes' shape is not the
// tensor's, `cast_back` when the tensor is not float32.
std::vector<Link> dequantize_chain(const Int8Layout& l, Form form, bool reshape, bool cast_back);
// The chain that turns packed low bits into their value below the codes (after which it is added).
std::vector<Link> low_bits_chain();
// The chain that makes the digit table from the 256 byte values (uint8, [256, 1]).
std::vector<Link> digit_table_chain();

}  // namespace onnx_shrink
