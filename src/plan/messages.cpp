// Protobuf messages the planners write: tensors, nodes, value infos, data fields (see messages.h).
#include "plan/messages.h"

#include "proto/onnx_fields.h"

namespace onnx_shrink {

namespace build {

Message tensor(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims) {
  Message m;
  for (int64_t d : dims) m.varint(onnx::tensor::kDims, static_cast<uint64_t>(d));
  m.varint(onnx::tensor::kDataType, static_cast<uint64_t>(data_type));
  m.string(onnx::tensor::kName, name);
  return m;
}

Message value_info(const std::string& name, int32_t data_type, const std::vector<int64_t>& dims) {
  Message shape;
  for (int64_t d : dims) {
    Message dim;
    dim.varint(onnx::shape::kDimValue, static_cast<uint64_t>(d));
    shape.message(onnx::shape::kDim, dim);
  }
  Message tensor_type;
  tensor_type.varint(onnx::type::kElemType, static_cast<uint64_t>(data_type));
  tensor_type.message(onnx::type::kShape, shape);
  Message type;
  type.message(onnx::type::kTensorType, tensor_type);
  Message m;
  m.string(onnx::value_info::kName, name);
  m.message(onnx::value_info::kType, type);
  return m;
}

Message node(const std::string& op_type, const std::string& name, const std::vector<std::string>& inputs,
             const std::vector<std::string>& outputs, const std::vector<Attribute>& attributes) {
  Message m;
  for (const std::string& s : inputs) m.string(onnx::node::kInput, s);
  for (const std::string& s : outputs) m.string(onnx::node::kOutput, s);
  if (!name.empty()) m.string(onnx::node::kName, name);
  m.string(onnx::node::kOpType, op_type);
  for (const Attribute& a : attributes) {
    Message attr;
    attr.string(onnx::attr::kName, a.name);
    if (a.tensor) {
      attr.varint(onnx::attr::kType, onnx::attr::kTypeTensor);
      attr.message(onnx::attr::kT, *a.tensor);
    } else {
      attr.varint(onnx::attr::kType, onnx::attr::kTypeInt);
      attr.varint(onnx::attr::kI, static_cast<uint64_t>(a.i));
    }
    m.message(onnx::node::kAttribute, attr);
  }
  return m;
}

void data(Message& tensor, const Payload& payload, const std::string& location) {
  if (payload.external) {
    auto entry = [&](const char* key, const std::string& value) {
      Message e;
      e.string(onnx::entry::kKey, key);
      e.string(onnx::entry::kValue, value);
      tensor.message(onnx::tensor::kExternalData, e);
    };
    entry("location", location);
    entry("offset", std::to_string(payload.external_offset));
    entry("length", std::to_string(payload.size));
    tensor.varint(onnx::tensor::kDataLocation, onnx::tensor::kLocationExternal);
  }
  tensor.payload(onnx::tensor::kRawData, payload);
}

void replace_data(const ModelIndex& index, const TensorInfo& t, const Message& data, std::vector<Edit>& edits) {
  bool first = true;
  for (const Range& field : t.data_fields) {
    Edit e;
    e.begin = field.begin;
    e.end = field.end;
    e.container = t.container;
    if (first) e.chunks.push_back(data.chunk());
    first = false;
    edits.push_back(std::move(e));
  }
  if (t.data_fields.empty()) {  // an empty tensor: add the field at the end of the message
    Edit e;
    e.begin = e.end = index.containers[t.container].content_end;
    e.container = t.container;
    e.chunks.push_back(data.chunk());
    edits.push_back(std::move(e));
  }
}

}  // namespace build

}  // namespace onnx_shrink
