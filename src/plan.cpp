#include "plan.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <set>
#include <map>
#include <queue>

#include "kernels/kernels.h"
#include "opset.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

// ---------------------------------------------------------------------------------------------
// Message builders
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// Layout: length prefixes and output size
// ---------------------------------------------------------------------------------------------

namespace {
// Edits in file order; two at the same place keep the order they were made in.
void sort_edits(std::vector<Edit>& edits) {
  std::vector<size_t> order(edits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Edit &x = edits[a], &y = edits[b];
    if (x.begin != y.begin) return x.begin < y.begin;
    if (x.end != y.end) return x.end < y.end;
    return a < b;
  });
  std::vector<Edit> sorted;
  sorted.reserve(edits.size());
  for (size_t i : order) sorted.push_back(std::move(edits[i]));
  edits.swap(sorted);
}
}  // namespace

uint64_t finish_layout(const ModelIndex& index, std::vector<Edit>& edits) {
  sort_edits(edits);
  // Size change of every container: its own edits plus its changed children. Children come after
  // their parents in the index, so one backward sweep settles them all.
  const size_t n = index.containers.size();
  std::vector<int64_t> delta(n, 0);
  std::vector<uint8_t> dirty(n);  // bytes, not vector<bool>: less code in WebAssembly
  int64_t top = 0;
  for (const Edit& e : edits) {
    const int64_t d = static_cast<int64_t>(e.size()) - static_cast<int64_t>(e.end - e.begin);
    if (e.container < 0) {
      top += d;
      continue;
    }
    delta[e.container] += d;
    for (int32_t c = e.container; c >= 0 && !dirty[c]; c = index.containers[c].parent) dirty[c] = true;
  }
  std::vector<Edit> prefixes;
  for (size_t k = n; k-- > 0;) {
    if (!dirty[k]) continue;
    const Container& c = index.containers[k];
    const uint64_t old_length = c.content_end - c.content_begin;
    const int64_t new_length = static_cast<int64_t>(old_length) + delta[k];
    if (new_length > INT32_MAX) {
      throw Error(ErrorCode::TooLarge, "a message of the result would be " + std::to_string(new_length) +
                                           " bytes, over the 2 GB protobuf limit: write external data");
    }
    Edit e;
    e.begin = c.length_begin;
    e.end = c.content_begin;
    e.container = c.parent;
    Chunk chunk;
    proto::append_varint(chunk.bytes, static_cast<uint64_t>(new_length));
    e.chunks.push_back(std::move(chunk));
    const int64_t d = static_cast<int64_t>(e.size()) - static_cast<int64_t>(e.end - e.begin) + delta[k];
    if (c.parent < 0) top += d;
    else delta[c.parent] += d;
    prefixes.push_back(std::move(e));
  }
  if (!prefixes.empty()) {
    edits.insert(edits.end(), std::make_move_iterator(prefixes.begin()), std::make_move_iterator(prefixes.end()));
    sort_edits(edits);
  }
  return static_cast<uint64_t>(static_cast<int64_t>(index.size) + top);
}

// ---------------------------------------------------------------------------------------------
// Planner
// ---------------------------------------------------------------------------------------------

namespace {

constexpr uint64_t kProtobufLimit = 2147483647;  // INT32_MAX: the largest message protobuf reads

struct Consumer {
  int32_t node;
  uint32_t input;
};

// A tensor the 8-bit form stores in place of a weight.
struct Stored {
  std::string name;
  Message message;
  int32_t type;
  std::vector<int64_t> dims;
  bool anonymous = false;  // as a Constant node: one without a name (the low bits' parts)
};

class Planner {
 public:
  Planner(const ModelIndex& index, TensorData& data, const Options& options, bool external, Progress* progress)
      : index_(index), data_(data), options_(options), external_(external), progress_(progress) {}

  Plan run() {
    describe_model();
    index_consumers();
    if (options_.mode == Mode::Int8) check_int8_opset();
    choose_items();
    if (options_.mode == Mode::Int8 && options_.form == Form::Dq) plan_opset();
    if (options_.mode == Mode::Int8 && options_.bits == 0) allocate_low_bits();
    build_edits();
    plan_.output_size = finish_layout(index_, plan_.edits);
    if (plan_.output_size > kProtobufLimit) {
      throw Error(ErrorCode::TooLarge, "the result would be " + std::to_string(plan_.output_size) +
                                           " bytes, over the 2 GB limit of a protobuf file: write external data");
    }
    plan_.external_size = external_cursor_;
    summarise();
    return std::move(plan_);
  }

 private:
  // --- model facts -------------------------------------------------------------------------

  void describe_model() {
    Report& r = plan_.report;
    r.mode = options_.mode == Mode::Int8 ? "int8" : "palette";
    r.ir_version = r.ir_version_after = index_.ir_version;
    for (const OpsetImport& o : index_.opsets) r.opsets.emplace_back(o.domain, o.version);
    r.producer = index_.producer;
    const GraphInfo& main = index_.graphs[0];
    std::set<std::string> initializer_names;
    for (int32_t t : main.initializers) initializer_names.insert(index_.tensors[t].name);
    for (const ValueField& v : main.inputs) {
      if (!initializer_names.count(v.info.name)) r.inputs.push_back(v.info);
    }
    for (const ValueField& v : main.outputs) r.outputs.push_back(v.info);
    r.model_bytes_before = index_.size;
    r.external_bytes_before = index_.external_bytes();
    // Every name in the model, so that new names never collide.
    for (const GraphInfo& g : index_.graphs) {
      for (const ValueField& v : g.inputs) names_.insert(v.info.name);
      for (const ValueField& v : g.outputs) names_.insert(v.info.name);
    }
    for (const NodeInfo& n : index_.nodes) {
      names_.insert(n.name);
      for (const std::string& s : n.inputs) names_.insert(s);
      for (const std::string& s : n.outputs) names_.insert(s);
    }
    for (const TensorInfo& t : index_.tensors) names_.insert(t.name);
  }

  // Readers by name, grouped by graph: the walk numbers graphs depth first, so a graph's subgraphs
  // (nested at any depth) are the ids from it to subtree_end_, and a tensor's consumers one range of
  // its name's readers. (Scanning every reader per tensor took the product of the two in time,
  // for files that define one name many times.)
  void index_consumers() {
    for (const GraphInfo& g : index_.graphs) {  // graph by graph: each name's readers come sorted by graph
      for (int32_t k : g.nodes) {
        const NodeInfo& n = index_.nodes[k];
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          if (!n.inputs[i].empty()) readers_[n.inputs[i]].push_back({k, static_cast<uint32_t>(i)});
        }
      }
    }
    subtree_end_.resize(index_.graphs.size());
    for (size_t g = index_.graphs.size(); g-- > 0;) {
      subtree_end_[g] = std::max(subtree_end_[g], static_cast<int32_t>(g + 1));
      const int32_t parent = index_.graphs[g].parent_node;
      if (parent >= 0) {
        int32_t& end = subtree_end_[static_cast<size_t>(index_.nodes[parent].graph)];
        end = std::max(end, subtree_end_[g]);
      }
    }
    // A name given to two tensors of one graph (no valid model does that): which one a node
    // reads is unknown, so both are left alone.
    std::set<std::string> defined;
    for (const TensorInfo& t : index_.tensors) {
      if (!defined.insert(scope_key(t)).second) defined_twice_.insert(scope_key(t));
    }
    for (size_t g = 0; g < index_.graphs.size(); ++g) {
      const GraphInfo& f = index_.graphs[g];
      if (f.function) functions_.emplace(f.function_domain + '\n' + f.function_name, static_cast<int32_t>(g));  // the first wins
    }
  }

  // A function keeps the opsets it imports (they are not raised): the new nodes must exist there.
  std::string function_reason(int32_t g) const {
    while (index_.graphs[g].parent_node >= 0) g = index_.nodes[index_.graphs[g].parent_node].graph;
    const GraphInfo& root = index_.graphs[g];
    if (!root.function || options_.mode != Mode::Int8) return "";
    const int64_t needed = options_.form == Form::Fold ? 7 : options_.block ? 21 : options_.scheme == Scheme::Tensor ? 10 : 13;
    if (root.function_opset >= needed) return "";
    return "in " + root.path + ", which imports ai.onnx opset " + std::to_string(root.function_opset) + ", below the " +
           std::to_string(needed) + " its new nodes need";
  }

  static std::string scope_key(const TensorInfo& t) { return t.name + '\n' + std::to_string(t.graph); }
  bool defined_twice(const TensorInfo& t) const { return defined_twice_.count(scope_key(t)) != 0; }

  // True when graph `g` is `scope` or nested inside it (names of `scope` are visible in `g`).
  bool inside(int32_t g, int32_t scope) const { return g >= scope && g < subtree_end_[static_cast<size_t>(scope)]; }

  std::vector<Consumer> consumers(const TensorInfo& t) const {
    auto it = readers_.find(t.name);
    if (it == readers_.end() || defined_twice(t)) return {};
    const std::vector<Consumer>& all = it->second;
    auto from = [&](int32_t g) {
      return std::partition_point(all.begin(), all.end(), [&](const Consumer& c) { return index_.nodes[c.node].graph < g; });
    };
    return std::vector<Consumer>(from(t.graph), from(subtree_end_[static_cast<size_t>(t.graph)]));
  }

  // --- what to change ----------------------------------------------------------------------

  void check_int8_opset() {
    const int64_t opset = index_.opset("");
    if (opset == 0) {
      throw Error(ErrorCode::Unsupported, "the model does not import the ai.onnx operator set, which the 8-bit form "
                                          "needs (Cast, Mul, Add); palette mode does not change the graph and works");
    }
    if (opset < 7) {
      throw Error(ErrorCode::Unsupported, "the model uses opset " + std::to_string(opset) +
                                              "; 8-bit weights need opset 7 or later (for broadcasting Mul and Add). "
                                              "Palette mode does not change the graph and works at any opset");
    }
  }

  std::string keep_reason(const TensorInfo& t, const std::vector<Consumer>& readers) const {
    for (const std::string& name : options_.exclude) {
      if (name == t.name) return "excluded by name";
    }
    for (const Consumer& c : readers) {
      const NodeInfo& n = index_.nodes[c.node];
      for (const std::string& name : options_.exclude_nodes) {
        if (!n.name.empty() && name == n.name) return "read by excluded node '" + n.name + "'";
      }
      for (const std::string& op : options_.exclude_ops) {
        if (op == n.op_type) return "read by an excluded " + n.op_type + " node";
      }
    }
    if (t.node >= 0) {
      for (const std::string& name : options_.exclude_nodes) {
        if (name == index_.nodes[t.node].name) return "its Constant node is excluded";
      }
    }
    if (!t.odd.empty()) return "stored as a " + t.odd + ", left as it is";
    const std::string function = function_reason(t.graph);
    if (!function.empty()) return function;
    switch (t.kind) {
      case DataKind::Raw:
      case DataKind::External:
        break;
      case DataKind::Float:
        if (t.data_type != onnx::kFloat) return "float_data holds a non-fp32 tensor";
        break;
      case DataKind::Double:
        if (t.data_type != onnx::kDouble) return "double_data holds a non-fp64 tensor";
        break;
      case DataKind::Int32:
        if (t.data_type != onnx::kFloat16 && t.data_type != onnx::kBfloat16) return "int32_data holds a float tensor";
        break;
      default:
        return "its data is stored in an unexpected field";
    }
    return "";
  }

  // The output- and input-channel axes of a weight, from the op that reads it: the output axis
  // gets its own scales; the input axis, separable factors.
  struct Axes {
    int64_t out = -1, in = -1;
  };
  Axes weight_axes(const TensorInfo& t, const std::vector<Consumer>& readers) const {
    const int64_t rank = static_cast<int64_t>(t.dims.size());
    // The readers looked at, at most: names read by many nodes at each step (which a hostile file
    // can have) would otherwise take their product in time.
    int budget = 256;
    for (const Consumer& c : readers) {
      const Axes a = axes_for(c, rank, 0, budget);
      if (a.out >= 0) return a;
    }
    // The PyTorch convention, [out, in, ...], after any leading axes of 1: a position embedding
    // [1, positions, width] added to the activations gets a scale per position.
    int64_t out = 0;
    while (out + 2 < rank && t.dims[static_cast<size_t>(out)] == 1) ++out;
    return {out, out + 1 < rank ? out + 1 : -1};
  }

  Axes axes_for(const Consumer& c, int64_t rank, int depth, int& budget) const {
    if (--budget < 0) return {};
    const NodeInfo& n = index_.nodes[c.node];
    if (n.domain == "com.microsoft") return fused_op_axes(n, c.input, rank);
    if (!n.domain.empty()) return function_call_axes(n, c.input, rank, depth, budget);
    const std::string& op = n.op_type;
    if (op == "Conv" && c.input == 1) return {0, 1};
    if (op == "ConvTranspose" && c.input == 1) return n.group == 1 ? Axes{1, 0} : Axes{0, -1};
    if (op == "MatMul") return matmul_axes(c.input, rank, false);
    if (op == "Gemm") return matmul_axes(c.input, 2, (c.input == 1 ? n.trans_b : n.trans_a) != 0);
    if (op == "Gather" && c.input == 0) return {n.axis < 0 ? n.axis + rank : n.axis, -1};
    if (op == "Einsum") return einsum_axes(n.equation, c.input, rank);
    if ((op == "LSTM" || op == "GRU" || op == "RNN") && (c.input == 1 || c.input == 2)) return {1, 2};
    // Look through ops that do not move values (fp16 weights often sit behind a Cast), and
    // through a Transpose, mapping its reader's axes back to the weight's (converters leave one in
    // front of a kernel stored as [kh, kw, in, out]).
    const bool transpose = op == "Transpose" && c.input == 0;
    if ((op == "Cast" || op == "Identity" || transpose) && depth < 4 && !n.outputs.empty()) {
      const std::vector<int64_t> perm = n.has_perm ? n.perm : reversed_axes(rank);
      if (transpose && !is_permutation(perm, rank)) return {};
      auto it = readers_.find(n.outputs[0]);
      if (it != readers_.end()) {
        for (const Consumer& next : it->second) {
          const Axes a = axes_for(next, rank, depth + 1, budget);
          if (a.out < 0) continue;
          if (!transpose) return a;
          if (a.out >= rank || a.in >= rank) return {};  // a reader's axis past the weight's rank
          return {perm[static_cast<size_t>(a.out)], a.in >= 0 ? perm[static_cast<size_t>(a.in)] : -1};
        }
      }
    }
    return {};
  }

  // A product's operands: B is [.., in, out] and A is [.., out, in]; `transposed` swaps the two.
  static Axes matmul_axes(uint32_t input, int64_t rank, bool transposed) {
    if (input > 1) return {};
    const bool out_last = (input == 1) != transposed;
    return out_last ? Axes{rank - 1, rank - 2} : Axes{rank - 2, rank - 1};
  }

  // onnxruntime's fused operators, which its transformer optimizer and some converters write.
  // Their weights are laid out as the standard ops' (Attention's as a MatMul's B: [in, 3 * hidden]).
  static Axes fused_op_axes(const NodeInfo& n, uint32_t input, int64_t rank) {
    const std::string& op = n.op_type;
    if (op == "FusedConv" && input == 1) return {0, 1};
    if (op == "FusedGemm") return matmul_axes(input, 2, (input == 1 ? n.trans_b : n.trans_a) != 0);
    if (op == "FusedMatMul" && !n.trans_batch) return matmul_axes(input, rank, (input == 1 ? n.trans_b : n.trans_a) != 0);
    const bool attention_weight = (op == "Attention" && input == 1) || (op == "LongformerAttention" && (input == 1 || input == 4)) ||
                                  (op == "DecoderAttention" && (input == 2 || input == 3));
    if (attention_weight) return {1, 0};
    if (op == "EmbedLayerNormalization" && input >= 2 && input <= 4) return {0, -1};  // embedding rows
    return {};
  }

  // Einsum ("bsc,cd->bsd"): the operand's rightmost label that the output keeps is its output
  // channel, the rightmost one summed over its input channel. Ellipses, repeated labels or an
  // implicit output: no axes.
  static Axes einsum_axes(const std::string& equation, uint32_t input, int64_t rank) {
    std::string e;
    for (char ch : equation) if (ch != ' ') e += ch;
    const size_t arrow = e.find("->");
    if (arrow == std::string::npos) return {};
    const std::string out = e.substr(arrow + 2);
    size_t begin = 0;
    for (uint32_t k = 0; k < input; ++k) {
      begin = e.find(',', begin);
      if (begin == std::string::npos || begin > arrow) return {};
      ++begin;
    }
    const std::string labels = e.substr(begin, std::min(e.find(',', begin), arrow) - begin);
    if (static_cast<int64_t>(labels.size()) != rank) return {};
    Axes a;
    for (size_t i = 0; i < labels.size(); ++i) {
      const char l = labels[i];
      if (!std::isalpha(static_cast<unsigned char>(l)) || labels.find(l) != i || labels.rfind(l) != i) return {};
      (out.find(l) != std::string::npos ? a.out : a.in) = static_cast<int64_t>(i);
    }
    return a.in >= 0 ? a : Axes{};
  }

  // A call of a model-local function: what the readers of that input in its body want.
  Axes function_call_axes(const NodeInfo& n, uint32_t input, int64_t rank, int depth, int& budget) const {
    const auto g = functions_.find(n.domain + '\n' + n.op_type);
    if (depth >= 4 || g == functions_.end()) return {};
    const GraphInfo& f = index_.graphs[g->second];
    auto it = input < f.function_inputs.size() ? readers_.find(f.function_inputs[input]) : readers_.end();
    if (it == readers_.end()) return {};
    for (const Consumer& next : it->second) {
      const Axes a = inside(index_.nodes[next.node].graph, g->second) ? axes_for(next, rank, depth + 1, budget) : Axes{};
      if (a.out >= 0) return a;
    }
    return {};
  }

  // A Transpose's perm when it has none.
  static std::vector<int64_t> reversed_axes(int64_t rank) {
    std::vector<int64_t> axes;
    for (int64_t a = rank - 1; a >= 0; --a) axes.push_back(a);
    return axes;
  }

  static bool is_permutation(const std::vector<int64_t>& perm, int64_t rank) {
    if (static_cast<int64_t>(perm.size()) != rank) return false;
    std::vector<uint8_t> seen(perm.size());
    for (int64_t p : perm) {
      if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return false;
      seen[static_cast<size_t>(p)] = true;
    }
    return true;
  }

  Int8Layout int8_layout(const TensorInfo& t, const std::vector<Consumer>& readers, const uint8_t* values,
                         std::string& note) const {
    if (options_.scheme == Scheme::Tensor) {
      Int8Layout l;
      l.seed = true;
      l.code_dims = t.dims;
      l.required_opset = 10;
      return l;
    }
    const Axes axes = t.dims.size() >= 2 ? weight_axes(t, readers) : Axes{};
    if (options_.block > 0) return uniform_layout(t.dims, axes.out, options_.block, options_.form, note);
    return choose_int8_layout(values, t.dims, axes.out, axes.in, options_.form, options_.scheme == Scheme::Auto);
  }

  void choose_items() {
    uint64_t candidate_bytes = 0;
    std::vector<int32_t> candidates, small;
    Report& r = plan_.report;
    for (size_t k = 0; k < index_.tensors.size(); ++k) {
      const TensorInfo& t = index_.tensors[k];
      if (!onnx::is_float_weight_type(t.data_type)) continue;
      if (t.elements < options_.min_elements) {
        r.small_tensors += 1;
        r.small_tensor_bytes += TensorData::raw_size(t);
        small.push_back(static_cast<int32_t>(k));
        continue;
      }
      candidates.push_back(static_cast<int32_t>(k));
      candidate_bytes += TensorData::raw_size(t);
    }
    uint64_t scanned = 0;
    for (int32_t k : candidates) {
      const TensorInfo& t = index_.tensors[k];
      const std::vector<Consumer> readers = consumers(t);
      TensorReport tr;
      tr.name = t.name;
      tr.graph = index_.graphs[t.graph].path;
      tr.location = t.node >= 0 ? "constant" : "initializer";
      if (t.node >= 0) tr.node = index_.nodes[t.node].name;
      tr.dtype = onnx::dtype_name(t.data_type);
      tr.shape = t.dims;
      std::set<std::string> ops;
      for (const Consumer& c : readers) ops.insert(index_.nodes[c.node].op_type);
      tr.consumers.assign(ops.begin(), ops.end());
      tr.bytes_before = TensorData::raw_size(t);
      tr.bytes_after = tr.bytes_before;
      tr.reason = defined_twice(t) ? "its name is given to another tensor of the same graph" : keep_reason(t, readers);
      Int8Layout layout;
      std::string note;
      bool low_bits_allowed = false;
      std::string low_bits_note;
      double sqnr_estimate = 0;
      if (tr.reason.empty()) {
        // Read it once now: NaN or infinity would make every scale meaningless. The 8-bit scheme
        // is chosen now too, since it decides the size of what replaces the tensor.
        data_.check(t);
        const uint8_t* values = data_.floats(t);
        float lo = 0, hi = 0;
        bool finite = true;
        if (t.elements) {
          lo = hi = kernels::load_f32(values);
          kernels::minmax(values, static_cast<size_t>(t.elements), lo, hi, finite);
        }
        if (!finite) {
          tr.reason = t.data_type == onnx::kDouble ? "contains NaN or infinity, or values beyond float32's range (codes are made in float32)"
                                                   : "contains NaN or infinity";
        } else if (!std::isfinite(hi - lo)) {
          // No float32 step spans it: every scheme's scale would be infinite.
          tr.reason = "its values span more than float32 can hold (max - min overflows)";
        } else if (hi > lo && std::max(std::fabs(lo), std::fabs(hi)) < 255 * FLT_MIN) {
          // Its steps would be subnormal numbers, which have too few bits to scale codes by.
          tr.reason = "its values are all within 3e-36 of zero, too small for float32 steps";
        } else if (options_.mode == Mode::Int8) {
          layout = int8_layout(t, readers, values, note);
          layout.draw = options_.rounding_draw;
          layout.salt = static_cast<uint64_t>(k);
          low_bits_note = low_bits_reason(t, layout, std::max(std::fabs(lo), std::fabs(hi)), options_.bits);
          // Auto bits go by the estimated SQNR (taken now, while the values are at hand), for
          // layouts of channels or blocks (the estimate's), when small tensors may pay for them.
          low_bits_allowed = low_bits_note.empty() && (options_.bits || layout.axis >= 0);
          if (low_bits_allowed && options_.bits == 0 && options_.small != SmallTensors::Keep && !small.empty()) {
            sqnr_estimate = estimate_sqnr_db(layout, values, t.dims);
          }
        }
      }
      scanned += TensorData::raw_size(t);
      report_progress(candidate_bytes ? double(scanned) / double(candidate_bytes) : 1.0);
      if (!tr.reason.empty()) {
        r.tensors.push_back(std::move(tr));
        continue;
      }
      Item item;
      item.tensor = k;
      item.form = options_.form;
      item.low_bits_allowed = low_bits_allowed;
      item.sqnr_estimate = sqnr_estimate;
      if (options_.mode == Mode::Int8) {
        item.action = Action::Int8;
        item.layout = std::move(layout);
        if (low_bits_allowed && options_.bits > 8) item.layout.low_bits = static_cast<int32_t>(options_.bits) - 8;
        if (options_.bits > 8 && !low_bits_allowed) note += (note.empty() ? "" : "; ") + low_bits_note;
        const Int8Layout& l = item.layout;
        tr.scheme = l.scheme();
        tr.axis = l.axis;
        tr.factor_axis = l.factor_axis;
        tr.block = l.block;
        if (!note.empty()) tr.reason = note;
        const uint64_t g = l.groups;
        tr.bytes_after = t.elements + 4 * l.factor_count() + (l.codebook ? 4 * 256 : 4 * g + (item.form == Form::Fold ? 4 * g : g)) +
                         (l.code_dims != t.dims ? 8 * t.dims.size() : 0);
      } else {
        item.action = Action::Palette;
        item.levels = options_.levels;
        item.choice = options_.scheme == Scheme::Uniform  ? palette::Choice::Uniform
                      : options_.scheme == Scheme::KMeans ? palette::Choice::KMeans
                                                          : palette::Choice::Auto;
        tr.scheme = options_.scheme == Scheme::Uniform ? "uniform" : options_.scheme == Scheme::KMeans ? "kmeans" : "auto";
      }
      tr.changed = true;
      item.report = static_cast<int32_t>(r.tensors.size());
      r.tensors.push_back(std::move(tr));
      changed_.insert(k);
      plan_.items.push_back(std::move(item));
    }
    choose_small(small);
  }

  // Small float32 tensors stored as float16 (SmallTensors), as items of their own among the others
  // (in tensor order, as build_edits expects).
  void choose_small(const std::vector<int32_t>& small) {
    const bool any_large = !plan_.items.empty();
    const bool wanted = options_.mode == Mode::Int8 &&
                        (options_.small == SmallTensors::Fp16 ||
                         (options_.small == SmallTensors::Auto && any_large && options_.scheme != Scheme::Tensor));
    if (!wanted) return;
    std::vector<Item> items;
    size_t large = 0;
    for (int32_t k : small) {
      const TensorInfo& t = index_.tensors[k];
      if (t.data_type != onnx::kFloat || defined_twice(t) || !keep_reason(t, consumers(t)).empty()) continue;
      // Worth a Cast node (its float16 tensor takes a short name: about 30 bytes more in all).
      if (t.elements < 64) continue;
      data_.check(t);
      if (!fits_float16(data_.floats(t), t.elements)) continue;
      while (large < plan_.items.size() && plan_.items[large].tensor < k) items.push_back(std::move(plan_.items[large++]));
      items.emplace_back();
      items.back().tensor = k;
      items.back().action = Action::Half;
      changed_.insert(k);
    }
    while (large < plan_.items.size()) items.push_back(std::move(plan_.items[large++]));
    plan_.items.swap(items);
  }

  // Whether float16 holds the n values well: none past its range, integer values (indices,
  // positions, counts) exactly, and the whole to 60 dB (values in its subnormals keep fewer bits:
  // a tensor of many such fails that).
  static bool fits_float16(const uint8_t* x, uint64_t n) {
    double signal = 0, noise = 0;
    bool integers = true, exact = true;
    for (uint64_t k = 0; k < n; ++k) {
      const float v = kernels::load_f32(x + 4 * k), a = std::fabs(v);
      if (!(a <= 65504.0f)) return false;
      const float h = kernels::half_to_float(kernels::float_to_half(v));
      signal += double(v) * v;
      noise += (double(v) - h) * (double(v) - h);
      integers = integers && v == std::nearbyint(v);
      exact = exact && v == h;
    }
    if (integers) return exact;
    return noise <= signal * 1e-6;
  }

  // Why a tensor keeps 8 bits when Options::bits asks for `bits` (0 for auto's 9th and 10th), or ""
  // when it may have more. Low bits need the fold form's float offsets, uniform or separable codes,
  // Mod (opset 10) where the nodes go, whole bytes of them, and values well inside their type's
  // range (so that no code needs moving inward: saturation.h).
  std::string low_bits_reason(const TensorInfo& t, const Int8Layout& l, float largest, uint32_t bits) const {
    if (options_.form != Form::Fold || l.seed) return "8 bits";
    if (l.codebook) return "8 bits: a codebook's codes index its 256 levels";
    const uint64_t per_byte = bits > 8 ? 8 / (bits - 8) : 8;
    if (t.elements % per_byte != 0) return "8 bits: its values do not fill whole bytes of low bits";
    if (!(largest <= onnx::largest_finite(t.data_type) / 4)) return std::string("8 bits: its values come near the largest ") + onnx::dtype_name(t.data_type);
    int32_t g = t.graph;
    while (index_.graphs[g].parent_node >= 0) g = index_.nodes[index_.graphs[g].parent_node].graph;
    const int64_t opset = index_.graphs[g].function ? index_.graphs[g].function_opset : index_.opset("");
    if (opset < 10) return "8 bits: the Mod that adds low bits needs opset 10 (here " + std::to_string(opset) + ")";
    return "";
  }

  void report_progress(double fraction) {
    if (progress_ && !progress_->report(fraction, "reading")) throw Error(ErrorCode::Cancelled, "cancelled");
  }

  // --- auto bits ---------------------------------------------------------------------------

  // Options::bits 0: the bytes the float16 small tensors save go to low bits of the 8-bit codes.
  // Each next bit goes to the tensor whose estimated SQNR is lowest at that point (water-filling:
  // relative to its tensor, the error a bit halves is largest there), up to a 10th, as long as it
  // fits. What a half saves is counted low and what a bit costs high (with room for length
  // prefixes that grow), so the result is never larger than with 8 bits and the small tensors left
  // alone, without laying that out.
  void allocate_low_bits() {
    using Level = std::pair<double, int32_t>;  // estimated SQNR with the bits so far, item
    std::priority_queue<Level, std::vector<Level>, std::greater<Level>> next;
    auto digits = [](size_t i) { return static_cast<int64_t>(std::to_string(i).size()); };
    // Length prefixes of the messages around the changes may grow by a byte or two each.
    std::set<int32_t> around;
    int64_t budget = -16;
    for (size_t i = 0; i < plan_.items.size(); ++i) {
      const Item& item = plan_.items[i];
      const TensorInfo& t = index_.tensors[item.tensor];
      for (int32_t c = index_.graphs[t.graph].container; c >= 0 && around.insert(c).second; c = index_.containers[c].parent) {
        budget -= 4;
      }
      // Half the data, less a Cast node and the name it reads, "hf<item>", twice: under 40 bytes and
      // the name (the tensor gives up its long name for it).
      if (item.action == Action::Half) budget += static_cast<int64_t>(2 * t.elements) - 2 * digits(i) - 40;
      if (item.low_bits_allowed) next.push({item.sqnr_estimate, static_cast<int32_t>(i)});
    }
    std::set<std::pair<int32_t, int32_t>> shared;  // graph and form, bits: digits and base paid for
    while (!next.empty() && budget > 0) {
      const Level top = next.top();
      next.pop();
      Item& item = plan_.items[top.second];
      const TensorInfo& t = index_.tensors[item.tensor];
      const int32_t bits = item.layout.low_bits + 1;
      const std::pair<int32_t, int32_t> key{t.graph * 2 + (t.node >= 0), bits};
      // The packed bits; with the first, the nodes and constants that add them (low_bits_nodes: at
      // most 350 bytes, the names "lb<item>.*", the shape and the Add's reading of the weight's
      // chain); the graph's digits and base the first time (140). What does not fit now never will.
      int64_t cost = static_cast<int64_t>(t.elements / 8) + (shared.count(key) ? 0 : 140);
      if (bits == 1) cost += 350 + 14 * digits(top.second) + static_cast<int64_t>(t.name.size() + 8 * item.layout.code_dims.size());
      if (cost > budget) continue;
      budget -= cost;
      shared.insert(key);
      item.layout.low_bits = bits;
      if (bits < 2) next.push({top.first + 6.02, top.second});
    }
  }

  // --- opset -------------------------------------------------------------------------------

  void plan_opset() {
    int64_t required = 0;
    for (const Item& item : plan_.items) required = std::max(required, item.layout.required_opset);
    const int64_t current = index_.opset("");
    if (required <= current) return;
    const char* why = required >= 21 ? "DequantizeLinear with blocks needs opset 21"
                                     : "DequantizeLinear per channel needs opset 13";
    if (std::any_of(index_.graphs.begin(), index_.graphs.end(), [](const GraphInfo& g) { return g.function; })) {
      throw Error(ErrorCode::Unsupported, std::string("--form dq: ") + why + " and the model uses opset " + std::to_string(current) +
                                              "; it defines functions with their own opset imports, so raising it is not "
                                              "known to be safe. Use --form fold: it works at opset " +
                                              std::to_string(current) + " and onnxruntime folds it at load");
    }
    const std::vector<std::string> changed = ops_changed_between(index_, current, required);
    if (!changed.empty()) {
      std::string list;
      for (size_t i = 0; i < changed.size() && i < 8; ++i) list += (i ? ", " : "") + changed[i];
      if (changed.size() > 8) list += ", ...";
      throw Error(ErrorCode::Unsupported, std::string("--form dq: ") + why + ", the model uses opset " +
                                              std::to_string(current) + ", and these operators it uses have definitions that changed by then: " +
                                              list + ". Use --form fold: it works at opset " + std::to_string(current) +
                                              " and onnxruntime folds it at load, so inference speed is unchanged");
    }
    raised_opset_ = required;
    OpsetChange change;
    change.from = current;
    change.to = required;
    change.reason = std::string(why) + "; no operator the model uses changed behaviour between the two";
    plan_.report.opset_changes.push_back(change);
    const int64_t ir = ir_version_for_opset(required);
    if (index_.ir_version < ir) plan_.report.ir_version_after = ir;
  }

  // --- edits -------------------------------------------------------------------------------

  // `base`, or base_1, base_2, ...: the first not yet in the model. Tensors that share a name
  // share the search, which goes on from where the last one stopped (names are only ever added).
  std::string unique(const std::string& base) {
    std::string name = base;
    int32_t& k = suffix_[base];
    while (names_.count(name)) name = base + "_" + std::to_string(++k);
    names_.insert(name);
    return name;
  }

  Payload payload(PayloadKind kind, int32_t item, uint64_t size, bool may_be_external) {
    Payload p;
    p.kind = kind;
    p.item = item;
    p.size = size;
    p.external = external_ && may_be_external && size >= options_.external_threshold;
    if (p.external) {
      const uint64_t a = std::max<uint32_t>(options_.external_alignment, 1);
      external_cursor_ = (external_cursor_ + a - 1) / a * a;
      p.external_offset = external_cursor_;
      external_cursor_ += size;
    }
    return p;
  }

  // A small tensor whose bytes are known now (a Reshape target shape).
  static Message literal_tensor(const std::string& name, int32_t type, const std::vector<int64_t>& dims,
                                const std::string& raw) {
    Message m = build::tensor(name, type, dims);
    m.string(onnx::tensor::kRawData, raw);
    return m;
  }

  void build_edits() {
    const size_t chosen = plan_.items.size();
    add_relocations();
    // External data is written in output order, and offsets are handed out as payloads are made:
    // so edits are made in the order of their tensors, which is their order in the file. The
    // tensors chosen and those relocated were each found walking the tensors: two runs to merge.
    std::vector<int32_t> order;
    for (size_t a = 0, b = chosen; a < chosen || b < plan_.items.size();) {
      const bool first = b == plan_.items.size() || (a < chosen && plan_.items[a].tensor < plan_.items[b].tensor);
      order.push_back(static_cast<int32_t>(first ? a++ : b++));
    }
    std::vector<std::vector<Chunk>> inserts(index_.graphs.size());  // new nodes per graph
    for (int32_t i : order) {
      const Action action = plan_.items[i].action;
      if (action == Action::Int8) int8_edits(i, inserts);
      else if (action == Action::Half) half_edits(i, inserts);
      else data_edit(i, action == Action::Palette ? PayloadKind::Palette : PayloadKind::Copy);
    }
    for (size_t g = 0; g < inserts.size(); ++g) {
      if (inserts[g].empty()) continue;
      Edit e;
      e.begin = e.end = index_.graphs[g].node_insert_at;
      e.container = index_.graphs[g].container;
      e.chunks = std::move(inserts[g]);
      plan_.edits.push_back(std::move(e));
    }
    opset_edits();
    for (auto& entry : input_edits_) plan_.edits.push_back(std::move(entry));
  }

  // Untouched tensors whose data must move: external data brought inline, or large initializers
  // moved out to the external file.
  void add_relocations() {
    for (size_t k = 0; k < index_.tensors.size(); ++k) {
      if (changed_.count(static_cast<int32_t>(k))) continue;
      const TensorInfo& t = index_.tensors[k];
      const bool movable = t.odd.empty() && (t.kind == DataKind::Raw || t.kind == DataKind::Float ||
                                             t.kind == DataKind::Double || t.kind == DataKind::External);
      if (!movable || onnx::element_bits(t.data_type) == 0) continue;
      const bool is_external = t.kind == DataKind::External;
      const bool wants_external = external_ && t.node < 0 && TensorData::raw_size(t) >= options_.external_threshold;
      if (!is_external && !wants_external) continue;
      if (is_external) data_.check(t);
      Item item;
      item.tensor = static_cast<int32_t>(k);
      item.action = Action::Copy;
      plan_.items.push_back(item);
    }
  }

  // Replaces the data fields of a tensor (in place, keeping its other fields).
  void data_edit(int32_t item, PayloadKind kind) {
    const TensorInfo& t = index_.tensors[plan_.items[item].tensor];
    const Payload p = payload(kind, item, TensorData::raw_size(t), t.node < 0);
    Message data;
    build::data(data, p, options_.external_location);
    build::replace_data(index_, t, data, plan_.edits);
    if (kind == PayloadKind::Palette) {
      TensorReport& tr = plan_.report.tensors[plan_.items[item].report];
      tr.bytes_after = p.size;
    }
  }

  void int8_edits(int32_t i, std::vector<std::vector<Chunk>>& inserts) {
    const Item& item = plan_.items[i];
    const TensorInfo& t = index_.tensors[item.tensor];
    const Int8Layout& l = item.layout;
    const bool fold = item.form == Form::Fold;
    const bool constant = t.node >= 0;
    const std::string& w = t.name;
    const int64_t rank = static_cast<int64_t>(t.dims.size());
    const bool reshape = l.code_dims != t.dims;

    // The stored tensors, in the order the encoder produces them (codes first).
    std::vector<Stored> stored;
    auto store = [&](const std::string& base, int32_t type, const std::vector<int64_t>& dims, PayloadKind kind, uint64_t size) {
      const std::string name = unique(w + base);
      Message m = build::tensor(name, type, dims);
      build::data(m, payload(kind, i, size, !constant), options_.external_location);
      stored.push_back({name, std::move(m), type, dims});
      return name;
    };
    const std::string codes = store("::codes", l.codebook ? onnx::kUint8 : onnx::kInt8, l.code_dims, PayloadKind::Codes, t.elements);
    const int64_t per_byte = l.low_bits ? 8 / l.low_bits : 0;
    std::string low;
    if (l.low_bits) {
      low = unique("lb" + std::to_string(i) + ".p");
      Message m = build::tensor(low, onnx::kUint8, {static_cast<int64_t>(t.elements) / per_byte, 1});
      build::data(m, payload(PayloadKind::LowBits, i, l.packed_low_bytes(t.elements), !constant), options_.external_location);
      stored.push_back({low, std::move(m), onnx::kUint8, {static_cast<int64_t>(t.elements) / per_byte, 1}, true});
    }
    std::string scale, third, table, factors, shape;
    if (l.codebook) {
      table = store("::table", onnx::kFloat, {256}, PayloadKind::Table, 4 * 256);
    } else {
      scale = store("::scale", onnx::kFloat, l.scale_dims, PayloadKind::Scales, 4 * l.groups);
      third = fold ? store("::offset", onnx::kFloat, l.scale_dims, PayloadKind::Offsets, 4 * l.groups)
                   : store("::zero_point", onnx::kInt8, l.scale_dims, PayloadKind::ZeroPoints, l.groups);
    }
    if (l.factor_count()) factors = store("::factors", onnx::kFloat, l.factor_dims, PayloadKind::Factors, 4 * l.factor_count());
    if (reshape) {
      shape = unique(w + "::shape");
      std::string raw(8 * t.dims.size(), '\0');
      for (size_t d = 0; d < t.dims.size(); ++d) std::memcpy(&raw[8 * d], &t.dims[d], 8);
      stored.push_back({shape, literal_tensor(shape, onnx::kInt64, {rank}, raw), onnx::kInt64, {rank}});
    }

    // The nodes that turn them back into the original tensor; the last one outputs its name.
    const bool cast_back = t.data_type != onnx::kFloat;
    const std::string prefix = w + "::dequantize/";
    std::vector<Message> nodes;
    std::string current;
    const std::string low_values = l.low_bits ? low_bits_nodes(i, t, low, l, stored, nodes) : std::string();
    struct Step {
      std::string op;
      std::vector<std::string> extra;  // inputs after the running value
      std::vector<build::Attribute> attributes;
    };
    std::vector<Step> steps;
    std::vector<std::string> first_inputs{codes};
    if (l.codebook) {
      steps.push_back({"Cast", {}, {{"to", onnx::kInt32}}});
      steps.push_back({"Gather", {}, {}});  // Gather(table, indices): the table comes first
    } else if (fold) {
      steps.push_back({"Cast", {}, {{"to", onnx::kFloat}}});
      if (l.low_bits) steps.push_back({"Add", {low_values}, {}});
      steps.push_back({"Mul", {scale}, {}});
      steps.push_back({"Add", {third}, {}});
    } else {
      std::vector<build::Attribute> attributes;
      if (l.kind == Int8Layout::Rows || l.kind == Int8Layout::Columns) attributes.push_back({"axis", l.axis});
      if (l.kind == Int8Layout::RowBlocks) attributes.push_back({"axis", 1}), attributes.push_back({"block_size", l.block});
      if (l.kind == Int8Layout::ColumnBlocks) attributes.push_back({"axis", 0}), attributes.push_back({"block_size", l.block});
      steps.push_back({"DequantizeLinear", {scale, third}, attributes});
    }
    if (reshape) steps.push_back({"Reshape", {shape}, {}});
    if (!factors.empty()) steps.push_back({"Mul", {factors}, {}});
    if (cast_back) steps.push_back({"Cast", {}, {{"to", t.data_type}}});
    current = codes;
    for (size_t k = 0; k < steps.size(); ++k) {
      const Step& s = steps[k];
      const bool last = k + 1 == steps.size();
      // The Add of the low bits is theirs: short and unnamed, as their other nodes.
      const bool adds_low = !low_values.empty() && s.extra.size() == 1 && s.extra[0] == low_values;
      const std::string out = last ? w : adds_low ? unique("lb" + std::to_string(i) + ".a") : unique(w + "::" + std::to_string(k) + "_" + s.op);
      std::vector<std::string> inputs = s.op == "Gather" ? std::vector<std::string>{table, current} : std::vector<std::string>{current};
      if (s.op != "Gather") inputs.insert(inputs.end(), s.extra.begin(), s.extra.end());
      nodes.push_back(build::node(s.op, adds_low ? std::string() : unique(prefix + s.op), inputs, {out}, s.attributes));
      current = out;
    }

    Edit e;
    e.begin = constant ? index_.nodes[t.node].field.begin : t.field.begin;
    e.end = constant ? index_.nodes[t.node].field.end : t.field.end;
    e.container = index_.graphs[t.graph].container;
    if (constant) {
      // A Constant node becomes Constant nodes for the stored tensors followed by the chain, in place
      // (those of the low bits unnamed, as their nodes: bytes that buy the model nothing).
      for (const Stored& st : stored) {
        const std::string name = st.anonymous ? std::string() : unique(prefix + "Constant");
        const Message node = build::node("Constant", name, {}, {st.name}, {{"value", 0, &st.message}});
        e.chunks.push_back(node.as_field(index_.graphs[t.graph].node_field));
      }
      for (const Message& n : nodes) e.chunks.push_back(n.as_field(index_.graphs[t.graph].node_field));
    } else {
      for (const Stored& st : stored) e.chunks.push_back(st.message.as_field(onnx::graph::kInitializer));
      for (const Message& n : nodes) inserts[t.graph].push_back(n.as_field(onnx::graph::kNode));
      graph_input_edit(t, stored);
    }
    plan_.edits.push_back(std::move(e));
    if (options_.form == Form::Dq) explicit_perm_edits(t);
  }

  // The nodes that turn the packed low bits of item i's codes (tensor `low`: [n / per_byte, 1]
  // bytes) into floats low / 2^bits in the codes' shape, for the chain to add to the codes:
  //   digit j of byte b = Mod(Floor(b / 2^(j bits)), 2^bits), over [n / per_byte, per_byte], / 2^bits.
  // Every step is exact in fp32, and onnxruntime folds it at load with the rest of the chain. The
  // digits' divisors and the base are constants shared by the graph's tensors of one form
  // (initializers, or Constant nodes: the first one's stand before the others'); new constants go
  // to `stored`. Returns the name of the result. Names are short ("lb<item>.*"), and the nodes
  // unnamed: on a model of long names they would cost more than the bits they carry.
  std::string low_bits_nodes(int32_t i, const TensorInfo& t, const std::string& low, const Int8Layout& l,
                             std::vector<Stored>& stored, std::vector<Message>& nodes) {
    const std::string tag = "lb" + std::to_string(i);
    const int64_t per_byte = 8 / l.low_bits;
    auto constant = [&](const char* suffix, int32_t type, const std::vector<int64_t>& dims, const void* raw, size_t size) {
      const std::string name = unique(tag + suffix);
      stored.push_back({name, literal_tensor(name, type, dims, std::string(static_cast<const char*>(raw), size)), type, dims, true});
      return name;
    };
    const int32_t key = (t.graph * 2 + (t.node >= 0)) * 8 + l.low_bits;
    const Digits* shared = nullptr;
    for (const Digits& d : low_bit_digits_) shared = d.key == key ? &d : shared;
    if (!shared) {
      float digits[8];
      for (int64_t j = 0; j < per_byte; ++j) digits[j] = static_cast<float>(1u << (j * l.low_bits));
      const float base = static_cast<float>(1 << l.low_bits);
      std::string d = constant(".d", onnx::kFloat, {1, per_byte}, digits, 4 * static_cast<size_t>(per_byte));
      low_bit_digits_.push_back({key, std::move(d), constant(".m", onnx::kFloat, {}, &base, 4)});
      shared = &low_bit_digits_.back();
    }
    const std::string shape = constant(".s", onnx::kInt64, {static_cast<int64_t>(l.code_dims.size())}, l.code_dims.data(),
                                       8 * l.code_dims.size());
    std::string value = low;
    auto node = [&](const char* op, const std::string* operand, const char* attribute, int64_t setting) {
      std::vector<std::string> inputs{value};
      if (operand) inputs.push_back(*operand);
      value = unique(tag + "." + std::to_string(nodes.size()));
      std::vector<build::Attribute> attributes;
      if (attribute) attributes.push_back({attribute, setting});
      nodes.push_back(build::node(op, "", inputs, {value}, attributes));
    };
    node("Cast", nullptr, "to", onnx::kFloat);
    node("Div", &shared->digits, nullptr, 0);
    node("Floor", nullptr, nullptr, 0);
    node("Mod", &shared->base, "fmod", 1);
    node("Div", &shared->base, nullptr, 0);
    node("Reshape", &shape, nullptr, 0);
    return value;
  }

  // A small float32 tensor (Action::Half) becomes a float16 one read through a Cast to float32,
  // which gives the original name its value again.
  void half_edits(int32_t i, std::vector<std::vector<Chunk>>& inserts) {
    const TensorInfo& t = index_.tensors[plan_.items[i].tensor];
    const bool constant = t.node >= 0;
    const std::string half = unique("hf" + std::to_string(i));  // short: the Cast gives back the long name
    Message m = build::tensor(half, onnx::kFloat16, t.dims);
    build::data(m, payload(PayloadKind::Half, i, 2 * t.elements, !constant), options_.external_location);
    const Message cast = build::node("Cast", "", {half}, {t.name}, {{"to", onnx::kFloat}});
    Edit e;
    e.container = index_.graphs[t.graph].container;
    if (constant) {
      const int32_t field = index_.graphs[t.graph].node_field;
      e.begin = index_.nodes[t.node].field.begin;
      e.end = index_.nodes[t.node].field.end;
      e.chunks.push_back(build::node("Constant", index_.nodes[t.node].name, {}, {half}, {{"value", 0, &m}}).as_field(field));
      e.chunks.push_back(cast.as_field(field));
    } else {
      e.begin = t.field.begin;
      e.end = t.field.end;
      e.chunks.push_back(m.as_field(onnx::graph::kInitializer));
      inserts[t.graph].push_back(cast.as_field(onnx::graph::kNode));
      graph_input_edit(t, {{half, Message(), onnx::kFloat16, t.dims, false}});
    }
    plan_.edits.push_back(std::move(e));
  }

  // onnxruntime (1.30) aborts loading a model where a per-axis DequantizeLinear feeds a Transpose
  // that has no perm attribute (its transpose optimizer reads the absent perm). Such a Transpose
  // gets the perm it means by default, the axes reversed: the same op, written out.
  void explicit_perm_edits(const TensorInfo& t) {
    for (const Consumer& c : consumers(t)) {
      const NodeInfo& n = index_.nodes[c.node];
      if (n.op_type != "Transpose" || !n.domain.empty() || n.has_perm || !perm_added_.insert(c.node).second) continue;
      Message attr;
      attr.string(onnx::attr::kName, "perm");
      attr.varint(onnx::attr::kType, onnx::attr::kTypeInts);
      attr.packed_int64(onnx::attr::kInts, reversed_axes(static_cast<int64_t>(t.dims.size())));
      Edit e;
      e.begin = e.end = index_.containers[n.container].content_end;
      e.container = n.container;
      e.chunks.push_back(attr.as_field(onnx::node::kAttribute));
      plan_.edits.push_back(std::move(e));
    }
  }

  // An initializer listed as a graph input (a default value the caller could override) cannot
  // also be the output of the new nodes: the input goes. Before IR 4 every initializer had to be
  // an input, so the new initializers are listed in its place.
  void graph_input_edit(const TensorInfo& t, const std::vector<Stored>& stored) {
    const GraphInfo& g = index_.graphs[t.graph];
    for (const ValueField& v : g.inputs) {
      if (v.info.name != t.name) continue;
      Edit e;
      e.begin = v.field.begin;
      e.end = v.field.end;
      e.container = g.container;
      if (index_.ir_version < 4) {
        for (const Stored& st : stored) e.chunks.push_back(build::value_info(st.name, st.type, st.dims).as_field(onnx::graph::kInput));
      } else if (t.graph == 0) {
        plan_.report.removed_inputs.push_back(t.name);
      }
      input_edits_.push_back(std::move(e));
      break;
    }
  }

  void opset_edits() {
    if (raised_opset_ == 0) return;
    for (const OpsetImport& o : index_.opsets) {
      if (!o.domain.empty()) continue;
      Message m;
      m.string(onnx::opset::kDomain, "");
      m.varint(onnx::opset::kVersion, static_cast<uint64_t>(raised_opset_));
      Edit e;
      e.begin = o.field.begin;
      e.end = o.field.end;
      e.chunks.push_back(m.as_field(onnx::model::kOpsetImport));
      plan_.edits.push_back(std::move(e));
    }
    if (plan_.report.ir_version_after != index_.ir_version) {
      Message m;
      m.varint(onnx::model::kIrVersion, static_cast<uint64_t>(plan_.report.ir_version_after));
      Edit e;
      e.begin = index_.ir_version_field.begin;
      e.end = index_.ir_version_field.end;
      e.chunks.push_back(m.chunk());
      plan_.edits.push_back(std::move(e));
    }
  }

  void summarise() {
    Report& r = plan_.report;
    r.model_bytes_after = plan_.output_size;
    r.external_bytes_after = plan_.external_size;
    r.small_tensor_bytes_after = r.small_tensor_bytes;
    for (const Item& item : plan_.items) {
      const TensorInfo& t = index_.tensors[item.tensor];
      if (item.action == Action::Half) {
        ++r.small_tensors_fp16;
        r.small_tensor_bytes_after -= 2 * t.elements;
      }
      if (item.action != Action::Int8 || item.report < 0) continue;
      const Int8Layout& l = item.layout;
      TensorReport& tr = r.tensors[item.report];
      tr.bits = 8 + static_cast<uint32_t>(l.low_bits);
      // The packed bits and their three constants (digits, base, shape).
      if (l.low_bits) tr.bytes_after += l.packed_low_bytes(t.elements) + 4 * static_cast<uint64_t>(8 / l.low_bits) + 4 + 8 * l.code_dims.size();
    }
    for (const TensorReport& t : r.tensors) {
      if (!t.changed) continue;
      ++r.tensors_changed;
      r.weight_bytes_before += t.bytes_before;
      r.weight_bytes_after += t.bytes_after;
    }
    r.unchanged = plan_.edits.empty();
    uint64_t work = 0;
    for (const Item& item : plan_.items) work += TensorData::raw_size(index_.tensors[item.tensor]);
    plan_.work = work;
  }

  const ModelIndex& index_;
  TensorData& data_;
  const Options& options_;
  const bool external_;
  Progress* progress_;
  Plan plan_;
  std::set<std::string> names_;
  std::map<std::string, std::vector<Consumer>> readers_;
  std::map<std::string, int32_t> functions_;
  std::map<std::string, int32_t> suffix_;  // unique(): the last suffix tried for a base  // "domain\nname" -> its graph
  std::set<int32_t> changed_;
  std::vector<int32_t> subtree_end_;     // graph -> one past its last nested subgraph
  std::set<std::string> defined_twice_;  // "name\ngraph" of tensors whose name is given twice
  std::set<int32_t> perm_added_;  // Transpose nodes given an explicit perm
  struct Digits {
    int32_t key;  // graph, form (Constant nodes or initializers) and bits
    std::string digits, base;
  };
  std::vector<Digits> low_bit_digits_;  // the constants low_bits_nodes shares
  std::vector<Edit> input_edits_;
  int64_t raised_opset_ = 0;
  uint64_t external_cursor_ = 0;
};

}  // namespace

Plan plan_shrink(const ModelIndex& index, TensorData& data, const Options& options, bool external_output,
                 Progress* progress) {
  return Planner(index, data, options, external_output, progress).run();
}

}  // namespace onnx_shrink
