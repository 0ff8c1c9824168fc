// The plan: what happens to every weight, and the output as edits of the input.
//
// plan_shrink() is a short pipeline (plan.cpp); each step is a file of plan/:
//   scope          who reads each name, and which graphs see it
//   channel_axes   a weight's output- and input-channel axes, from the ops that read it
//   selection      which tensors change and how, and why the others stay
//   bit_allocation the bytes float16 small tensors save, spent on low bits of 8-bit codes
//   opset_raise    the DequantizeLinear form's opset
//   emit           the items as edits: new tensors and nodes (chains from code_format.h)
//   layout         length prefixes and the output's size
//   messages       the protobuf messages all of these write
#pragma once

#include <vector>

#include "edits.h"
#include "int8_layout.h"
#include "index.h"
#include "kernels/palette_levels.h"
#include "plan/messages.h"
#include "tensor_data.h"

namespace onnx_shrink {

enum class Action : uint8_t { Int8, Palette, Copy, Half };

struct Item {
  int32_t tensor = -1;
  Action action = Action::Copy;
  Int8Layout layout;
  Form form = Form::Fold;
  palette::Choice choice = palette::Choice::Auto;
  uint32_t levels = 0;
  int32_t report = -1;  // its entry in Report::tensors, or -1
  double sqnr_estimate = 0;  // int8 with low bits allowed: estimated SQNR with 8 bits (allocation order)
  bool low_bits_allowed = false;
  AxisMaxima in_maxima;  // int8: along the input-channel axis, taken as the values were checked
  float lo = 0, hi = 0;  // the range of the values (as the plan checked them)
};

struct Plan {
  std::vector<Item> items;
  std::vector<Edit> edits;  // sorted, including the rewritten length prefixes
  Report report;
  uint64_t output_size = 0;    // bytes of the model file written
  uint64_t external_size = 0;  // bytes of the external data file written
  uint64_t work = 0;           // bytes the writer processes (for progress)
};

// Decides what to do and lays out the output. Reads every tensor it will change once (tensors with
// NaN or infinity are left alone) and checks every external reference, so that whatever can fail
// fails before the first byte is written.
Plan plan_shrink(const ModelIndex& index, TensorData& data, const Options& options, bool external_output,
                 Progress* progress);

// Sorts `edits`, adds the rewritten length prefix of every container that changes size, and
// returns the size of the output. Throws Error(TooLarge) past the 2 GB protobuf limit.
uint64_t finish_layout(const ModelIndex& index, std::vector<Edit>& edits);

}  // namespace onnx_shrink
