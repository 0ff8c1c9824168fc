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
// (from, to] in a way that can change what they compute: raising the model's opset from `from` to
// `to` is safe when this is empty. Version bumps that only added types (most of opsets 13 and 14)
// do not count. Operators with no known history are listed too (not known to be safe).
std::vector<std::string> ops_changed_between(const ModelIndex& index, int64_t from, int64_t to);

}  // namespace onnx_shrink
