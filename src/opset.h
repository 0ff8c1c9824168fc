// Opset facts: which IR version an opset needs, and whether raising a model's opset is safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index.h"

namespace onnx_shrink {

// The lowest IR version that may declare `opset` of ai.onnx (onnx's VERSION_TABLE).
int64_t ir_version_for_opset(int64_t opset);

// The ai.onnx operators the model uses (in any graph) whose definition changed in an opset in
// (from, to]: raising the model's opset from `from` to `to` would change what they compute.
// Operators this engine has no history for are listed too (raising is then not known to be safe).
std::vector<std::string> ops_changed_between(const ModelIndex& index, int64_t from, int64_t to);

}  // namespace onnx_shrink
