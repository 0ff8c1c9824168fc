// Exact values: readers that need a weight's values exactly (see exact_values.h).
#include "plan/exact_values.h"

#include "proto/onnx_fields.h"

namespace onnx_shrink {

namespace {

bool is_float_type(int64_t t) {
  return onnx::is_float_weight_type(static_cast<int32_t>(t)) || (t >= onnx::kFloat8E4M3FN && t <= onnx::kFloat8E5M2FNUZ) ||
         t == onnx::kFloat4E2M1;
}

// The first reason among `readers` (those inside graph `within`, when it is not -1). `budget`
// bounds the readers looked at (a hostile file can have names read by many nodes at each step).
const char* exact_among(const ModelIndex& index, const Scope& scope, const std::vector<Consumer>* readers, int32_t within,
                        int depth, int& budget) {
  if (!readers || depth > 4) return nullptr;
  for (const Consumer& c : *readers) {
    const NodeInfo& n = index.nodes[c.node];
    if (--budget < 0 || (within >= 0 && !scope.inside(n.graph, within)) || n.domain == "com.microsoft") continue;
    const std::string& op = n.op_type;
    const std::vector<Consumer>* next = nullptr;
    int32_t g = -1;
    if (!n.domain.empty()) {  // a model-local function: the readers of that input in its body
      g = scope.function(n.domain, op);
      if (g >= 0 && c.input < index.graphs[g].function_inputs.size()) next = scope.readers(index.graphs[g].function_inputs[c.input]);
    } else if (op == "Range" || (c.input && (op == "Resize" || op == "Upsample"))) {
      return "it sets an output's shape: kept exact";
    } else if (op == "Cast" && !is_float_type(n.int_attribute("to"))) {
      return "it is cast to integers: kept exact";
    } else if (op == "Pow" && c.input == 1) {
      return "it is an exponent: kept exact";
    } else if (((op == "Div" || op == "Mod") && c.input == 1) || op == "Reciprocal") {
      return "it is a divisor: kept exact";
    } else if (op == "Log" || op == "Sqrt") {
      return "it is under Log or Sqrt: kept exact";
    } else if ((op == "Cast" || op == "Identity") && !n.outputs.empty()) {
      next = scope.readers(n.outputs[0]);
    }
    if (const char* why = exact_among(index, scope, next, g, depth + 1, budget)) return why;
  }
  return nullptr;
}

}  // namespace

const char* exact_reason(const ModelIndex& index, const Scope& scope, const std::vector<Consumer>& readers) {
  int budget = 256;
  return exact_among(index, scope, &readers, -1, 0, budget);
}

}  // namespace onnx_shrink
