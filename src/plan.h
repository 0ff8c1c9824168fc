// The plan: what happens to every weight, and the output as edits of the input.
#pragma once

#include <vector>

#include "edits.h"
#include "int8_layout.h"
#include "index.h"
#include "kernels/palette_levels.h"
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

// Shared by the planners: common protobuf messages.
namespace build {
Message tensor(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims);
Message value_info(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims);
struct Attribute {
  std::string name;
  int64_t i = 0;
  const Message* tensor = nullptr;  // set for a tensor attribute
};
Message node(const std::string& op_type, const std::string& name, const std::vector<std::string>& inputs,
             const std::vector<std::string>& outputs, const std::vector<Attribute>& attributes = {});
// Adds the data of a tensor message: raw_data holding `payload`, or, when the payload is external,
// the external_data entries pointing at it.
void data(Message& tensor, const Payload& payload, const std::string& location);
// Edits that replace a tensor's data fields (in place, keeping its other fields) with `data`.
void replace_data(const ModelIndex& index, const TensorInfo& t, const Message& data, std::vector<Edit>& edits);
}  // namespace build

}  // namespace onnx_shrink
