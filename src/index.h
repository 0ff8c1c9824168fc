// The index: where everything the engine may change lives in the model's bytes.
//
// One walk over ModelProto -> GraphProto (main and every subgraph) -> NodeProto -> AttributeProto
// -> TensorProto records names, shapes, types, consumers and byte ranges. No tensor payload is read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_shrink.h"
#include "proto/wire.h"

namespace onnx_shrink {

struct Range {
  uint64_t begin = 0, end = 0;
  uint64_t size() const { return end - begin; }
};

// A length-delimited field (a nested message) whose length prefix must be rewritten when
// something inside it changes size. parent == -1: the field sits directly in the ModelProto.
struct Container {
  int32_t parent = -1;
  uint64_t length_begin = 0;  // offset of the length varint
  uint64_t content_begin = 0, content_end = 0;
};

enum class DataKind : uint8_t { None, Raw, Float, Double, Int32, Int64, Uint64, String, External };

struct TensorInfo {
  std::string name;
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  uint64_t elements = 1;
  DataKind kind = DataKind::None;
  Range data;                 // payload in the model; External: bytes in `location`
  bool external_length_given = false;
  std::string location;       // external data file
  std::vector<Range> data_fields;  // every field that carries or locates data (to replace)
  int32_t container = -1;     // this TensorProto as a container
  Range field;                // the field (tag to end) holding this TensorProto in its parent
  int32_t graph = -1;
  int32_t node = -1;          // the Constant node holding it; -1 for an initializer
  std::string odd;            // non-empty: a layout this engine leaves alone (segments, unpacked data)
};

struct ValueField {  // a graph input or output
  Range field;
  ValueInfo info;
};

// A node attribute, as far as the engine reads them: an int, a list of ints, a string (tensors and
// graphs are indexed as such; floats are not kept).
struct Attribute {
  std::string name;
  bool has_int = false, has_ints = false, has_string = false;
  int64_t i = 0;
  std::vector<int64_t> ints;  // empty when the list was longer than the index keeps (kMaxInts)
  bool ints_complete = true;
  std::string s;              // empty when longer than kMaxString
  static constexpr size_t kMaxInts = 16;  // a longer list is no perm or shape of a weight's axes
  static constexpr uint64_t kMaxString = 4096;  // an equation, a mode: attribute strings that decide anything are short
};

struct NodeInfo {
  int32_t graph = -1;
  int32_t container = -1;
  Range field;
  uint32_t position = 0;  // index within its graph
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;
  std::vector<Attribute> attributes;  // every int, ints and string attribute, in file order
  int32_t value_tensor = -1;  // Constant: its `value` tensor
  std::vector<int32_t> subgraphs;

  // The attribute called `name` (the last one, if a file gives it twice), or nullptr.
  const Attribute* attribute(const char* name) const;
  // Its int value, or `fallback` when it has none.
  int64_t int_attribute(const char* name, int64_t fallback = 0) const;
};

struct GraphInfo {
  int32_t parent_node = -1;
  std::string path;            // "main", "main/If_0:then_branch", "function 'local.Block'"
  int32_t container = -1;
  // A model-local function (FunctionProto) is walked as a graph without initializers: its
  // Constant nodes' weights are found. It imports its own opsets (0: no ai.onnx).
  bool function = false;
  int64_t function_opset = 0;
  std::string function_domain, function_name;
  std::vector<std::string> function_inputs;
  uint32_t node_field = 1;  // GraphProto.node; FunctionProto.node is 7
  uint64_t node_insert_at = 0;  // new nodes are inserted here (before the first node)
  std::vector<int32_t> nodes;
  std::vector<int32_t> initializers;  // tensor indices
  std::vector<ValueField> inputs, outputs;
  int depth = 0;
};

struct OpsetImport {
  std::string domain;
  int64_t version = 0;
  Range field;
};

struct ModelIndex {
  uint64_t size = 0;
  int64_t ir_version = 0;
  Range ir_version_field;
  std::vector<OpsetImport> opsets;
  std::string producer;
  std::vector<Container> containers;
  std::vector<GraphInfo> graphs;  // [0] is the main graph
  std::vector<NodeInfo> nodes;
  std::vector<TensorInfo> tensors;
  uint64_t end_of_model = 0;  // where fields appended to the ModelProto go

  int64_t opset(const std::string& domain) const;  // 0 when not imported
  bool has_external_data() const;
  uint64_t external_bytes() const;  // in external data files
};

// Walks the model. Throws Error(NotOnnx / Truncated / Malformed) naming what is wrong and where.
ModelIndex index_model(proto::Window& window);

// Bytes of a tensor's data as stored in the input (payload of raw or typed fields).
uint64_t stored_bytes(const TensorInfo& tensor);

}  // namespace onnx_shrink
