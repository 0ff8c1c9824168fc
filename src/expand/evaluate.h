// expand()'s chains: what a dequantization chain found in a graph is, and its evaluation, computed
// as onnxruntime computes it (fp32 IEEE operations in the same order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "code_format.h"
#include "index.h"
#include "proto/onnx_fields.h"
#include "proto/wire.h"
#include "tensor_data.h"

namespace onnx_shrink {
namespace expansion {

struct Step {
  // PartBegin sets the value aside and starts from its constant (a second chain, inline: the low
  // bits of codes over 8 bits); AddPart adds what that made to the value set aside.
  enum Kind : uint8_t { Dequantize, CastTo, Mul, Add, Sub, Div, Mod, Floor, Reshape, Lookup, PartBegin, AddPart } kind;
  int32_t node = -1;
  int32_t constant = -1;   // the second operand (scale, factor, shape)
  int32_t zero = -1;       // DequantizeLinear zero point
  int64_t axis = 1, block = 0;
  int32_t to = 0;          // Cast target
};

struct Chain {
  int32_t graph = -1;
  int32_t codes = -1;  // tensor index of the integer (or float16) constant
  std::vector<Step> steps;
  std::string output;
  int32_t out_type = onnx::kFloat;
  std::vector<int64_t> out_dims;
  int32_t report = -1;
};

struct Array {
  std::vector<int64_t> dims;
  std::vector<float> values;
};

// The step that an op of the chains' vocabulary is (Cast -> CastTo, Gather -> Lookup, ...).
Step::Kind step_kind(ChainOp op);

uint64_t count(const std::vector<int64_t>& dims);
bool is_integer_type(int32_t t);
// Numpy broadcasting of two shapes; false when they do not broadcast.
bool broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, std::vector<int64_t>& out);

// Evaluates chains: reads their constants (integers converted exactly as Cast would) and applies
// their steps.
class Expander {
 public:
  Expander(const ModelIndex& index, TensorData& data, proto::Window& window) : index_(index), data_(data), window_(window) {}

  // A small or large constant as floats.
  Array load(int32_t tensor);
  // An int64 constant's values (a Reshape's shape); empty for another type.
  std::vector<int64_t> load_shape(int32_t tensor);
  // The final values of a chain, as floats.
  Array evaluate(const Chain& c);

 private:
  std::vector<int64_t> resolve_shape(const Array& x, std::vector<int64_t> shape, const Chain& c);
  static void lookup(Array& x, const Array& table, const Chain& c);
  static void cast(Array& x, int32_t to);
  static void binary(Array& x, const Array& b, Step::Kind kind);
  void dequantize(Array& x, const Step& s);
  static float integer_value(int32_t type, int64_t v);

  const ModelIndex& index_;
  TensorData& data_;
  proto::Window& window_;
};

}  // namespace expansion
}  // namespace onnx_shrink
