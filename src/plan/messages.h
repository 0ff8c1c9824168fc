// Protobuf messages the planners write (shrink's and expand's): tensors, nodes, value infos, data.
#pragma once

#include <string>
#include <vector>

#include "edits.h"
#include "index.h"

namespace onnx_shrink {

namespace build {
Message tensor(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims);
Message value_info(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims);
struct Attribute {
  const char* name;
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
