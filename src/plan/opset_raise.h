// Opset raise: the DequantizeLinear form's chains may need a newer ai.onnx opset than the model's.
#pragma once

#include "plan.h"

namespace onnx_shrink {

// The opset the items' chains need in the DequantizeLinear form, when above the model's: reported
// (with the IR version it needs) and returned. 0 when the model's opset suffices. Throws
// Error(Unsupported) when raising it is not known to be safe.
int64_t raise_opset(const ModelIndex& index, const std::vector<Item>& items, Report& report);

}  // namespace onnx_shrink
