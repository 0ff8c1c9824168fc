// Emission: the plan's items as edits of the input (new tensors and nodes, raised opset), and where
// each payload goes (inline, or at an offset of the external data file).
#pragma once

#include "plan.h"
#include "plan/scope.h"

namespace onnx_shrink {

// Adds to plan.items a Copy item for every untouched tensor whose data moves (external data
// brought inline, large initializers moved out), then makes the edits of every item, in file
// order. `raised_opset` > 0 rewrites the ai.onnx opset import (and the IR version the report
// gives). Sets plan.external_size.
void emit_edits(const ModelIndex& index, const Scope& scope, TensorData& data, const Options& options, bool external,
                int64_t raised_opset, Plan& plan);

}  // namespace onnx_shrink
