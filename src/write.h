// The writer: streams the output, copying the input around the plan's edits.
#pragma once

#include "encode.h"

namespace onnx_shrink {

// Writes the model to `out` and, when the plan puts data outside, the external file to
// `external_out`. Reports progress as the fraction of the plan's work done.
void write_output(proto::Window& model, const Plan& plan, Encoder& encoder, Sink& out, Sink* external_out,
                  Progress* progress);

// Runs the encoder over every payload without writing (for reports of what shrink would do).
void encode_only(const Plan& plan, Encoder& encoder, Progress* progress);

}  // namespace onnx_shrink
