#include "index.h"

#include <cstring>
#include <limits>
#include <set>

#include "file_kind.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {
namespace {

using proto::Field;
using proto::FieldReader;
using proto::TrailStep;
using proto::Window;
using proto::WireType;

constexpr int kMaxGraphDepth = 32;
constexpr size_t kNameLimit = size_t(1) << 20;

class Walker {
 public:
  Walker(Window& window, ModelIndex& index) : window_(window), index_(index) {}

  void model() {
    index_.size = window_.size();
    const std::string other = recognise_other_format(window_);
    if (!other.empty()) throw Error(ErrorCode::NotOnnx, "not an ONNX model: " + other);

    FieldReader reader(window_, trail_, 0, window_.size());
    Field f;
    bool typed_field_seen = false;  // a known ModelProto field with the right wire type
    bool graph_seen = false;
    std::vector<Field> functions;
    try {
      while (reader.next(f)) {
        switch (f.number) {
          case onnx::model::kIrVersion:
            if (f.type != WireType::Varint) break;
            index_.ir_version = static_cast<int64_t>(f.value);
            index_.ir_version_field = {f.begin, f.end};
            typed_field_seen = true;
            continue;
          case onnx::model::kOpsetImport:
            if (f.type != WireType::Bytes) break;
            opset_import(f);
            typed_field_seen = true;
            continue;
          case onnx::model::kProducerName:
            if (f.type != WireType::Bytes) break;
            producer_name_ = reader.string(f, kNameLimit);
            continue;
          case onnx::model::kProducerVersion:
            if (f.type != WireType::Bytes) break;
            producer_version_ = reader.string(f, kNameLimit);
            continue;
          case onnx::model::kGraph: {
            if (f.type != WireType::Bytes) break;
            if (graph_seen) trail_.fail(ErrorCode::Unsupported, "the model has two graph fields", f.begin);
            graph_seen = true;
            typed_field_seen = true;
            const int32_t c = container(f, -1);
            graph(f, c, -1, "main", 0);
            continue;
          }
          case onnx::model::kFunctions:
            if (f.type != WireType::Bytes) break;
            functions.push_back(f);  // walked after the main graph, which must be graphs[0]
            continue;
          default:
            continue;  // fields we do not read are copied as they are
        }
        // A known field with the wrong wire type.
        if (!typed_field_seen) {
          throw Error(ErrorCode::NotOnnx, "not an ONNX model: the first bytes do not form an ONNX ModelProto");
        }
        reader.expect(f, f.number == onnx::model::kIrVersion ? WireType::Varint : WireType::Bytes, "ModelProto field");
      }
    } catch (const Error& e) {
      if (!typed_field_seen && e.code != ErrorCode::NotOnnx) {
        throw Error(ErrorCode::NotOnnx, std::string("not an ONNX model: ") + e.what());
      }
      throw;
    }
    index_.end_of_model = window_.size();
    index_.producer = producer_name_ + (producer_version_.empty() ? "" : " " + producer_version_);
    if (!graph_seen) {
      throw Error(typed_field_seen ? ErrorCode::Malformed : ErrorCode::NotOnnx,
                  typed_field_seen ? "the model has no graph" : "not an ONNX model: it has no graph");
    }
    if (index_.ir_version <= 0) throw Error(ErrorCode::Malformed, "the model has no ir_version");
    for (const Field& fn : functions) function(fn);
  }

 private:
  int32_t container(const Field& f, int32_t parent) {
    Container c;
    c.parent = parent;
    c.length_begin = f.begin + proto::varint_size((uint64_t(f.number) << 3) | 2);
    c.content_begin = f.data;
    c.content_end = f.end;
    index_.containers.push_back(c);
    return static_cast<int32_t>(index_.containers.size() - 1);
  }

  void opset_import(const Field& outer) { index_.opsets.push_back(read_opset(outer)); }

  OpsetImport read_opset(const Field& outer) {
    TrailStep step(trail_, "opset_import");
    OpsetImport op;
    op.field = {outer.begin, outer.end};
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    while (r.next(f)) {
      if (f.number == onnx::opset::kDomain) {
        r.expect(f, WireType::Bytes, "OperatorSetIdProto.domain");
        op.domain = r.string(f, kNameLimit);
      } else if (f.number == onnx::opset::kVersion) {
        r.expect(f, WireType::Varint, "OperatorSetIdProto.version");
        op.version = static_cast<int64_t>(f.value);
      }
    }
    if (op.domain == "ai.onnx") op.domain.clear();
    return op;
  }

  // A model-local function: its nodes are walked as a graph's (they may hold Constant weights).
  void function(const Field& outer) {
    const int32_t c = container(outer, -1);
    const int32_t g = add_graph(-1, "function", c, outer.end, 0);
    TrailStep step(trail_, "function");
    std::string name, domain;
    std::vector<std::string> inputs;
    std::vector<Field> nodes;
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    while (r.next(f)) {
      if (f.number == onnx::function::kName || f.number == onnx::function::kDomain) {
        r.expect(f, WireType::Bytes, "FunctionProto.name/domain");
        (f.number == onnx::function::kName ? name : domain) = r.string(f, kNameLimit);
      } else if (f.number == onnx::function::kInput) {
        r.expect(f, WireType::Bytes, "FunctionProto.input");
        inputs.push_back(r.string(f, kNameLimit));
      } else if (f.number == onnx::function::kOpsetImport) {
        r.expect(f, WireType::Bytes, "FunctionProto.opset_import");
        const OpsetImport op = read_opset(f);
        if (op.domain.empty()) index_.graphs[g].function_opset = op.version;
      } else if (f.number == onnx::function::kNode) {
        r.expect(f, WireType::Bytes, "FunctionProto.node");
        nodes.push_back(f);
      }
    }
    GraphInfo& info = index_.graphs[g];
    info.function = true;
    info.node_field = onnx::function::kNode;
    info.path = "function '" + (domain.empty() ? "" : domain + ".") + name + "'";
    info.function_inputs = std::move(inputs);
    if (domain == "ai.onnx") domain.clear();
    info.function_domain = std::move(domain);
    info.function_name = std::move(name);
    const std::string path = info.path;
    TrailStep named(trail_, path);
    uint32_t position = 0;
    for (const Field& n : nodes) node(n, container(n, c), g, position++, path, 0);
  }

  int32_t add_graph(int32_t parent_node, const std::string& path, int32_t c, uint64_t insert_at, int depth) {
    index_.graphs.emplace_back();
    GraphInfo& info = index_.graphs.back();
    info.parent_node = parent_node;
    info.path = path;
    info.container = c;
    info.node_insert_at = insert_at;
    info.depth = depth;
    return static_cast<int32_t>(index_.graphs.size() - 1);
  }

  void graph(const Field& outer, int32_t c, int32_t parent_node, std::string path, int depth) {
    if (depth > kMaxGraphDepth) trail_.fail(ErrorCode::Unsupported, "subgraphs nested more than 32 deep", outer.begin);
    const int32_t g = add_graph(parent_node, path, c, outer.end, depth);
    TrailStep step(trail_, "graph", &path);
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    bool first_node = true;
    uint32_t position = 0;
    while (r.next(f)) {
      switch (f.number) {
        case onnx::graph::kNode: {
          r.expect(f, WireType::Bytes, "GraphProto.node");
          if (first_node) index_.graphs[g].node_insert_at = f.begin;
          first_node = false;
          node(f, container(f, c), g, position++, path, depth);
          break;
        }
        case onnx::graph::kInitializer: {
          r.expect(f, WireType::Bytes, "GraphProto.initializer");
          const int32_t t = tensor(f, container(f, c), "initializer");
          index_.tensors[t].graph = g;
          index_.graphs[g].initializers.push_back(t);
          break;
        }
        case onnx::graph::kInput:
        case onnx::graph::kOutput: {
          r.expect(f, WireType::Bytes, "GraphProto.input/output");
          ValueField v;
          v.field = {f.begin, f.end};
          value_info(f, v.info);
          (f.number == onnx::graph::kInput ? index_.graphs[g].inputs : index_.graphs[g].outputs).push_back(std::move(v));
          break;
        }
        default:
          break;
      }
    }
  }

  void node(const Field& outer, int32_t c, int32_t g, uint32_t position, const std::string& graph_path, int depth) {
    const int32_t id = static_cast<int32_t>(index_.nodes.size());
    index_.nodes.emplace_back();
    index_.graphs[g].nodes.push_back(id);
    NodeInfo n;
    n.graph = g;
    n.container = c;
    n.field = {outer.begin, outer.end};
    n.position = position;
    std::vector<Field> attributes;
    {
      TrailStep step(trail_, "node", nullptr, position);
      FieldReader r(window_, trail_, outer.data, outer.end);
      Field f;
      while (r.next(f)) {
        switch (f.number) {
          case onnx::node::kInput:
            r.expect(f, WireType::Bytes, "NodeProto.input");
            n.inputs.push_back(r.string(f, kNameLimit));
            break;
          case onnx::node::kOutput:
            r.expect(f, WireType::Bytes, "NodeProto.output");
            n.outputs.push_back(r.string(f, kNameLimit));
            break;
          case onnx::node::kName:
            r.expect(f, WireType::Bytes, "NodeProto.name");
            n.name = r.string(f, kNameLimit);
            break;
          case onnx::node::kOpType:
            r.expect(f, WireType::Bytes, "NodeProto.op_type");
            n.op_type = r.string(f, kNameLimit);
            break;
          case onnx::node::kDomain:
            r.expect(f, WireType::Bytes, "NodeProto.domain");
            n.domain = r.string(f, kNameLimit);
            if (n.domain == "ai.onnx") n.domain.clear();
            break;
          case onnx::node::kAttribute:
            r.expect(f, WireType::Bytes, "NodeProto.attribute");
            attributes.push_back(f);
            break;
          default:
            break;
        }
      }
    }
    // Attributes are read after the node's other fields: their meaning depends on op_type, which
    // a writer may have put after them.
    TrailStep step(trail_, "node", n.name.empty() ? nullptr : &n.name, position, &n.op_type);
    for (const Field& a : attributes) attribute(a, container(a, c), n, id, graph_path, depth);
    // A Constant whose value is shrunk is replaced whole; graphs inside it (no valid Constant has
    // any, but a file may) hold tensors of their own that would be edited inside that range.
    if (n.value_tensor >= 0 && !n.subgraphs.empty()) index_.tensors[n.value_tensor].odd = "Constant node that also has graph attributes";
    index_.nodes[id] = std::move(n);
  }

  void attribute(const Field& outer, int32_t c, NodeInfo& n, int32_t node_id, const std::string& graph_path, int depth) {
    Attribute at;
    Field tensor_field, string_field;
    bool has_tensor = false;
    std::vector<Field> graphs;
    auto add_int = [&](uint64_t v) {
      if (at.ints.size() < Attribute::kMaxInts) at.ints.push_back(static_cast<int64_t>(v));
      else at.ints_complete = false;
    };
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    while (r.next(f)) {
      switch (f.number) {
        case onnx::attr::kName:
          r.expect(f, WireType::Bytes, "AttributeProto.name");
          at.name = r.string(f, kNameLimit);
          break;
        case onnx::attr::kI:
          r.expect(f, WireType::Varint, "AttributeProto.i");
          at.i = static_cast<int64_t>(f.value);
          at.has_int = true;
          break;
        case onnx::attr::kS:
          r.expect(f, WireType::Bytes, "AttributeProto.s");
          string_field = f;
          at.has_string = true;
          break;
        case onnx::attr::kT:
          r.expect(f, WireType::Bytes, "AttributeProto.t");
          tensor_field = f;
          has_tensor = true;
          break;
        case onnx::attr::kInts:
          at.has_ints = true;
          if (f.type == WireType::Varint) add_int(f.value);
          else {
            r.expect(f, WireType::Bytes, "AttributeProto.ints");
            proto::for_each_packed_varint(window_, trail_, f.data, f.end, add_int);
          }
          break;
        case onnx::attr::kG:
        case onnx::attr::kGraphs:
          r.expect(f, WireType::Bytes, "AttributeProto.g/graphs");
          graphs.push_back(f);
          break;
        default:
          break;
      }
    }
    if (!at.ints_complete) at.ints.clear();
    // Kept in the node first: its name then names the step (n's attributes do not change until
    // the node's next attribute).
    n.attributes.push_back(std::move(at));
    Attribute& kept = n.attributes.back();
    const std::string& name = kept.name;
    TrailStep step(trail_, "attribute", &name);
    if (kept.has_string && string_field.value <= Attribute::kMaxString) kept.s = r.string(string_field, Attribute::kMaxString);
    if (has_tensor && name == "value" && n.op_type == "Constant" && n.domain.empty()) {
      const int32_t t = tensor(tensor_field, container(tensor_field, c), "tensor");
      index_.tensors[t].graph = n.graph;
      index_.tensors[t].node = node_id;
      // The graph knows a Constant's value by the node's output name, whatever the tensor calls itself.
      if (!n.outputs.empty()) index_.tensors[t].name = n.outputs[0];
      n.value_tensor = t;
    }
    int k = 0;
    for (const Field& gf : graphs) {
      const std::string label = (n.name.empty() ? n.op_type : n.name) + ":" + name + (graphs.size() > 1 ? "[" + std::to_string(k) + "]" : "");
      ++k;
      const int32_t sub = static_cast<int32_t>(index_.graphs.size());
      n.subgraphs.push_back(sub);
      graph(gf, container(gf, c), node_id, graph_path + "/" + label, depth + 1);
    }
  }

  int32_t tensor(const Field& outer, int32_t c, const char* role) {
    const int32_t id = static_cast<int32_t>(index_.tensors.size());
    index_.tensors.emplace_back();
    TensorInfo t;
    t.container = c;
    t.field = {outer.begin, outer.end};
    bool external = false;
    int data_fields = 0;
    uint64_t ext_offset = 0, ext_length = 0;
    TrailStep step(trail_, role);
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    auto data_field = [&](DataKind kind, const Field& field) {
      t.data_fields.push_back({field.begin, field.end});
      ++data_fields;
      if (t.kind != DataKind::None && t.kind != kind) t.odd = "data stored in two different fields";
      if (t.kind == kind) t.odd = "data split over several fields";
      t.kind = kind;
      t.data = {field.data, field.end};
    };
    while (r.next(f)) {
      switch (f.number) {
        case onnx::tensor::kDims:
          if (f.type == WireType::Varint) {
            t.dims.push_back(static_cast<int64_t>(f.value));
          } else {
            r.expect(f, WireType::Bytes, "TensorProto.dims");
            proto::for_each_packed_varint(window_, trail_, f.data, f.end,
                                          [&](uint64_t v) { t.dims.push_back(static_cast<int64_t>(v)); });
          }
          break;
        case onnx::tensor::kDataType:
          r.expect(f, WireType::Varint, "TensorProto.data_type");
          t.data_type = static_cast<int32_t>(f.value);
          break;
        case onnx::tensor::kSegment:
          t.odd = "segmented tensor";
          break;
        case onnx::tensor::kName:
          r.expect(f, WireType::Bytes, "TensorProto.name");
          t.name = r.string(f, kNameLimit);
          break;
        case onnx::tensor::kRawData:
          r.expect(f, WireType::Bytes, "TensorProto.raw_data");
          data_field(DataKind::Raw, f);
          break;
        case onnx::tensor::kFloatData:
          if (f.type != WireType::Bytes) {
            t.odd = "float_data stored unpacked";
            t.data_fields.push_back({f.begin, f.end});
            t.kind = DataKind::Float;
            break;
          }
          data_field(DataKind::Float, f);
          break;
        case onnx::tensor::kDoubleData:
          if (f.type != WireType::Bytes) {
            t.odd = "double_data stored unpacked";
            t.data_fields.push_back({f.begin, f.end});
            t.kind = DataKind::Double;
            break;
          }
          data_field(DataKind::Double, f);
          break;
        case onnx::tensor::kInt32Data:
          if (f.type != WireType::Bytes) {
            t.odd = "int32_data stored unpacked";
            t.data_fields.push_back({f.begin, f.end});
            t.kind = DataKind::Int32;
            break;
          }
          data_field(DataKind::Int32, f);
          break;
        case onnx::tensor::kInt64Data:
          data_field(DataKind::Int64, f);
          break;
        case onnx::tensor::kUint64Data:
          data_field(DataKind::Uint64, f);
          break;
        case onnx::tensor::kStringData:
          t.data_fields.push_back({f.begin, f.end});
          t.kind = DataKind::String;
          break;
        case onnx::tensor::kExternalData: {
          r.expect(f, WireType::Bytes, "TensorProto.external_data");
          t.data_fields.push_back({f.begin, f.end});
          std::string key, value;
          FieldReader er(window_, trail_, f.data, f.end);
          Field e;
          while (er.next(e)) {
            if (e.number == onnx::entry::kKey) {
              er.expect(e, WireType::Bytes, "StringStringEntryProto.key");
              key = er.string(e, kNameLimit);
            } else if (e.number == onnx::entry::kValue) {
              er.expect(e, WireType::Bytes, "StringStringEntryProto.value");
              value = er.string(e, kNameLimit);
            }
          }
          if (key == "location") t.location = value;
          else if (key == "offset") ext_offset = parse_decimal(value, "offset", f.begin);
          else if (key == "length") {
            ext_length = parse_decimal(value, "length", f.begin);
            t.external_length_given = true;
          }
          break;
        }
        case onnx::tensor::kDataLocation:
          r.expect(f, WireType::Varint, "TensorProto.data_location");
          t.data_fields.push_back({f.begin, f.end});
          external = f.value == onnx::tensor::kLocationExternal;
          break;
        default:
          break;
      }
    }
    validate_dims(t, outer.begin);
    if (external) {
      if (data_fields > 0) trail_.fail(ErrorCode::Malformed, "tensor '" + t.name + "' has both external and inline data", outer.begin);
      if (t.location.empty()) trail_.fail(ErrorCode::Malformed, "tensor '" + t.name + "' has external data but no location", outer.begin);
      t.kind = DataKind::External;
      t.data = {ext_offset, ext_offset + ext_length};
    } else if (t.kind == DataKind::Raw && t.odd.empty()) {
      const int bits = onnx::element_bits(t.data_type);
      if (bits > 0) {
        const uint64_t need = (t.elements * uint64_t(bits) + 7) / 8;
        if (t.data.size() != need) {
          trail_.fail(ErrorCode::Malformed,
                      "tensor '" + t.name + "' of " + onnx::dtype_name(t.data_type) + " " + dims_text(t.dims) + " needs " +
                          std::to_string(need) + " bytes but raw_data has " + std::to_string(t.data.size()),
                      outer.begin);
        }
      }
    } else if ((t.kind == DataKind::Int32 || t.kind == DataKind::Int64 || t.kind == DataKind::Uint64) && t.odd.empty()) {
      // Packed varints take at least one byte each: a shorter field cannot hold the elements, and
      // checking now keeps hostile dimensions from sizing any buffer.
      if (t.data.size() < t.elements || t.data.size() > t.elements * 10) {
        trail_.fail(ErrorCode::Malformed,
                    "tensor '" + t.name + "' " + dims_text(t.dims) + " has " + std::to_string(t.data.size()) +
                        " bytes of packed values, which cannot hold " + std::to_string(t.elements) + " elements",
                    outer.begin);
      }
    } else if ((t.kind == DataKind::Float || t.kind == DataKind::Double) && t.odd.empty()) {
      const uint64_t need = t.elements * (t.kind == DataKind::Float ? 4 : 8) * (t.data_type == onnx::kComplex64 || t.data_type == onnx::kComplex128 ? 2 : 1);
      if (t.data.size() != need) {
        trail_.fail(ErrorCode::Malformed,
                    "tensor '" + t.name + "' " + dims_text(t.dims) + " needs " + std::to_string(need) + " bytes of " +
                        (t.kind == DataKind::Float ? "float_data" : "double_data") + " but has " + std::to_string(t.data.size()),
                    outer.begin);
      }
    }
    index_.tensors[id] = std::move(t);
    return id;
  }

  uint64_t parse_decimal(const std::string& s, const char* what, uint64_t offset) {
    if (s.empty() || s.size() > 19) trail_.fail(ErrorCode::Malformed, std::string("external data ") + what + " '" + s + "' is not a number", offset);
    uint64_t v = 0;
    for (char ch : s) {
      if (ch < '0' || ch > '9') trail_.fail(ErrorCode::Malformed, std::string("external data ") + what + " '" + s + "' is not a number", offset);
      v = v * 10 + uint64_t(ch - '0');
    }
    return v;
  }

  void validate_dims(TensorInfo& t, uint64_t offset) {
    uint64_t n = 1;
    for (int64_t d : t.dims) {
      if (d < 0) trail_.fail(ErrorCode::Malformed, "tensor '" + t.name + "' has a negative dimension " + std::to_string(d), offset);
      if (d != 0 && n > (uint64_t(1) << 62) / uint64_t(d)) {
        trail_.fail(ErrorCode::Malformed, "tensor '" + t.name + "' has absurd dimensions " + dims_text(t.dims), offset);
      }
      n *= uint64_t(d);
    }
    t.elements = n;
  }

  static std::string dims_text(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
  }

  void value_info(const Field& outer, ValueInfo& info) {
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    while (r.next(f)) {
      if (f.number == onnx::value_info::kName && f.type == WireType::Bytes) {
        info.name = r.string(f, kNameLimit);
      } else if (f.number == onnx::value_info::kType && f.type == WireType::Bytes) {
        FieldReader tr(window_, trail_, f.data, f.end);
        Field tf;
        while (tr.next(tf)) {
          if (tf.number != onnx::type::kTensorType || tf.type != WireType::Bytes) continue;
          FieldReader tt(window_, trail_, tf.data, tf.end);
          Field x;
          while (tt.next(x)) {
            if (x.number == onnx::type::kElemType && x.type == WireType::Varint) {
              info.dtype = onnx::dtype_name(static_cast<int32_t>(x.value));
            } else if (x.number == onnx::type::kShape && x.type == WireType::Bytes) {
              info.has_shape = true;
              shape(x, info);
            }
          }
        }
      }
    }
  }

  void shape(const Field& outer, ValueInfo& info) {
    FieldReader r(window_, trail_, outer.data, outer.end);
    Field f;
    while (r.next(f)) {
      if (f.number != onnx::shape::kDim || f.type != WireType::Bytes) continue;
      int64_t value = -1;
      std::string symbol;
      FieldReader dr(window_, trail_, f.data, f.end);
      Field d;
      while (dr.next(d)) {
        if (d.number == onnx::shape::kDimValue && d.type == WireType::Varint) value = static_cast<int64_t>(d.value);
        else if (d.number == onnx::shape::kDimParam && d.type == WireType::Bytes) symbol = dr.string(d, kNameLimit);
      }
      info.shape.push_back(value);
      info.symbols.push_back(symbol);
    }
  }

  Window& window_;
  ModelIndex& index_;
  proto::Trail trail_;
  std::string producer_name_, producer_version_;
};

}  // namespace

ModelIndex index_model(proto::Window& window) {
  ModelIndex index;
  Walker(window, index).model();
  return index;
}


}  // namespace onnx_shrink
