// Selection: which tensors change and how (8-bit layout, palette, float16), and why the others stay.
#pragma once

#include "plan.h"
#include "plan/scope.h"

namespace onnx_shrink {

// Throws Error(Unsupported) when the model's opset is below what the 8-bit form needs.
void check_int8_opset(const ModelIndex& index);

// Adds an item per tensor that changes (in tensor order) and a report entry per float tensor of at
// least min_elements values. Reads each candidate once (NaN or infinity leave it alone), reporting
// progress as "reading".
void select_items(const ModelIndex& index, const Scope& scope, TensorData& data, const Options& options, Progress* progress,
                  Plan& plan);

}  // namespace onnx_shrink
