// Emission (see emit.h).
#include "plan/emit.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "code_format.h"
#include "name_order.h"
#include "plan/channel_axes.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

namespace {

// A tensor the 8-bit form stores in place of a weight.
struct Stored {
  std::string name;
  Message message;
  int32_t type;
  std::vector<int64_t> dims;
  bool anonymous = false;  // as a Constant node: one without a name (the low bits' parts)
};

// The names of a chain's operands (empty: none), by Link::Operand; [None] holds the codes.
using Operands = std::string[Link::kOperands];

// A small tensor whose bytes are known now (a Reshape target shape).
Message literal_tensor(const std::string& name, int32_t type, const std::vector<int64_t>& dims, const std::string& raw) {
  Message m = build::tensor(name, type, dims);
  m.string(onnx::tensor::kRawData, raw);
  return m;
}

class Emitter {
 public:
  Emitter(const ModelIndex& index, const Scope& scope, TensorData& data, const Options& options, bool external, Plan& plan)
      : index_(index), scope_(scope), data_(data), options_(options), external_(external), plan_(plan) {
    // Every name in the model, so that new names never collide.
    for (const GraphInfo& g : index.graphs) {
      for (const ValueField& v : g.inputs) names_.insert(v.info.name);
      for (const ValueField& v : g.outputs) names_.insert(v.info.name);
    }
    for (const NodeInfo& n : index.nodes) {
      names_.insert(n.name);
      for (const std::string& s : n.inputs) names_.insert(s);
      for (const std::string& s : n.outputs) names_.insert(s);
    }
    for (const TensorInfo& t : index.tensors) names_.insert(t.name);
  }

  void run(int64_t raised_opset) {
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
    opset_edits(raised_opset);
    for (auto& entry : input_edits_) plan_.edits.push_back(std::move(entry));
    plan_.external_size = external_cursor_;
  }

 private:
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

  // Untouched tensors whose data must move: external data brought inline, or large initializers
  // moved out to the external file.
  void add_relocations() {
    std::set<int32_t> changed;
    for (const Item& item : plan_.items) changed.insert(item.tensor);
    for (size_t k = 0; k < index_.tensors.size(); ++k) {
      if (changed.count(static_cast<int32_t>(k))) continue;
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
    if (kind == PayloadKind::Palette) plan_.report.tensors[plan_.items[item].report].bytes_after = p.size;
  }

  // The tensors stored in place of item i's weight, in the order the encoder produces them (codes
  // first), by the operand each stands for in the chain.
  std::vector<Stored> stored_tensors(int32_t i, Operands& operands) {
    const Item& item = plan_.items[i];
    const TensorInfo& t = index_.tensors[item.tensor];
    const Int8Layout& l = item.layout;
    const CodeFormat& f = format_of(l);
    const bool constant = t.node >= 0;
    const std::string& w = t.name;
    std::vector<Stored> stored;
    auto store = [&](const std::string& name, int32_t type, const std::vector<int64_t>& dims, PayloadKind kind, uint64_t size,
                     bool anonymous) {
      Message m = build::tensor(name, type, dims);
      build::data(m, payload(kind, i, size, !constant), options_.external_location);
      stored.push_back({name, std::move(m), type, dims, anonymous});
      return name;
    };
    operands[Link::None] = store(unique(w + "::codes"), f.code_type, l.code_dims, PayloadKind::Codes, t.elements, false);
    if (f.low_bits) {
      const int64_t rows = static_cast<int64_t>(t.elements) / f.codes_per_low_byte();
      operands[Link::LowBits] = store(unique("lb" + std::to_string(i) + ".p"), onnx::kUint8, {rows, 1}, PayloadKind::LowBits,
                                      f.low_bytes(t.elements), true);
    }
    if (l.codebook) {
      operands[Link::Table] = store(unique(w + "::table"), onnx::kFloat, {256}, PayloadKind::Table, 4 * 256, false);
    } else {
      operands[Link::Scale] = store(unique(w + "::scale"), onnx::kFloat, l.scale_dims, PayloadKind::Scales, 4 * l.groups, false);
      if (item.form == Form::Fold) {
        operands[Link::Offset] = store(unique(w + "::offset"), onnx::kFloat, l.scale_dims, PayloadKind::Offsets, 4 * l.groups, false);
      } else {
        operands[Link::ZeroPoint] = store(unique(w + "::zero_point"), onnx::kInt8, l.scale_dims, PayloadKind::ZeroPoints, l.groups, false);
      }
    }
    if (l.factor_count()) {
      operands[Link::Factors] = store(unique(w + "::factors"), onnx::kFloat, l.factor_dims, PayloadKind::Factors, 4 * l.factor_count(), false);
    }
    if (l.code_dims != t.dims) {
      const std::string shape = unique(w + "::shape");
      std::string raw(8 * t.dims.size(), '\0');
      for (size_t d = 0; d < t.dims.size(); ++d) std::memcpy(&raw[8 * d], &t.dims[d], 8);
      const int64_t rank = static_cast<int64_t>(t.dims.size());
      stored.push_back({shape, literal_tensor(shape, onnx::kInt64, {rank}, raw), onnx::kInt64, {rank}});
      operands[Link::Shape] = shape;
    }
    return stored;
  }

  // A link's attributes: a Cast's type, DequantizeLinear's axis and block size, Mod's fmod.
  static std::vector<build::Attribute> attributes(const Link& link, const Int8Layout& l, int32_t own_type) {
    switch (link.op) {
      case ChainOp::Cast: return {{"to", link.to ? link.to : own_type}};
      case ChainOp::Mod: return {{"fmod", 1}};
      case ChainOp::DequantizeLinear:
        if (l.kind == Int8Layout::Rows || l.kind == Int8Layout::Columns) return {{"axis", l.axis}};
        if (l.kind == Int8Layout::RowBlocks) return {{"axis", 1}, {"block_size", l.block}};
        if (l.kind == Int8Layout::ColumnBlocks) return {{"axis", 0}, {"block_size", l.block}};
        return {};
      default: return {};
    }
  }

  void int8_edits(int32_t i, std::vector<std::vector<Chunk>>& inserts) {
    const Item& item = plan_.items[i];
    const TensorInfo& t = index_.tensors[item.tensor];
    const Int8Layout& l = item.layout;
    const bool constant = t.node >= 0;
    const std::string& w = t.name;
    Operands operands;
    std::vector<Stored> stored = stored_tensors(i, operands);

    // The nodes that turn them back into the original tensor; the last one outputs its name.
    const std::string prefix = w + "::dequantize/";
    std::vector<Message> nodes;
    if (!operands[Link::LowBits].empty()) operands[Link::LowBits] = low_bits_nodes(i, t, operands[Link::LowBits], l, stored, nodes);
    const std::vector<Link> chain = dequantize_chain(l, item.form, !operands[Link::Shape].empty(), t.data_type != onnx::kFloat);
    std::string current = operands[Link::None];
    for (size_t k = 0; k < chain.size(); ++k) {
      const Link& link = chain[k];
      const char* op = op_type(link.op);
      // The Add of the low bits is theirs: short and unnamed, as their other nodes.
      const bool adds_low = link.operand == Link::LowBits;
      const std::string out = k + 1 == chain.size() ? w
                              : adds_low            ? unique("lb" + std::to_string(i) + ".a")
                                                    : unique(w + "::" + std::to_string(k) + "_" + op);
      // Gather(table, indices): the table comes first.
      std::vector<std::string> inputs = link.op == ChainOp::Gather ? std::vector<std::string>{operands[Link::Table], current}
                                                                   : std::vector<std::string>{current};
      if (link.op != ChainOp::Gather && link.operand != Link::None) inputs.push_back(operands[link.operand]);
      if (link.op == ChainOp::DequantizeLinear) inputs.push_back(operands[Link::ZeroPoint]);
      nodes.push_back(build::node(op, adds_low ? std::string() : unique(prefix + op), inputs, {out}, attributes(link, l, t.data_type)));
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
    if (item.form == Form::Dq) explicit_perm_edits(t);
  }

  // The nodes that turn the packed low bits of item i's codes (tensor `low`: [n / per_byte, 1]
  // bytes) into floats low / 2^bits in the codes' shape, for the chain to add to the codes: a
  // Gather from the digit table (code_format.h), then a Reshape. The table, its nodes and their
  // constants (the 256 byte values, the digits' divisors, the base) are shared by the graph's
  // tensors of one form and width: they come with the first such tensor, whose constants and nodes
  // stand before the others' (initializers, or Constant nodes in place). Every step is exact in
  // fp32, and onnxruntime folds them at load. New constants go to `stored`. Returns the name of
  // the result. Names are short ("lb<item>.*"), and the nodes unnamed: on a model of long names
  // they would cost more than the bits they carry.
  std::string low_bits_nodes(int32_t i, const TensorInfo& t, const std::string& low, const Int8Layout& l,
                             std::vector<Stored>& stored, std::vector<Message>& nodes) {
    const std::string tag = "lb" + std::to_string(i);
    const CodeFormat& f = format_of(l);
    const int64_t per_byte = f.codes_per_low_byte();
    auto constant = [&](const char* suffix, int32_t type, const std::vector<int64_t>& dims, const void* raw, size_t size) {
      const std::string name = unique(tag + suffix);
      stored.push_back({name, literal_tensor(name, type, dims, std::string(static_cast<const char*>(raw), size)), type, dims, true});
      return name;
    };
    // Each link's nodes in order from `value`; returns the last one's output.
    auto chain = [&](const std::vector<Link>& links, std::string value, const Digits* d, const std::string& shape) {
      for (const Link& link : links) {
        // Gather(table, indices): the table comes first.
        std::vector<std::string> inputs{link.operand == Link::DigitTable ? d->table : value};
        if (link.operand == Link::DigitTable) inputs.push_back(value);
        if (link.operand == Link::Digits) inputs.push_back(d->digits);
        if (link.operand == Link::Base) inputs.push_back(d->base);
        if (link.operand == Link::Shape) inputs.push_back(shape);
        value = unique(tag + "." + std::to_string(nodes.size()));
        nodes.push_back(build::node(op_type(link.op), "", inputs, {value}, attributes(link, l, onnx::kFloat)));
      }
      return value;
    };
    const int32_t key = (t.graph * 2 + (t.node >= 0)) * 8 + l.low_bits;
    const Digits* shared = nullptr;
    for (const Digits& d : low_bit_digits_) shared = d.key == key ? &d : shared;
    if (!shared) {
      float digits[8];
      for (int64_t j = 0; j < per_byte; ++j) digits[j] = static_cast<float>(1u << (j * f.low_bits));
      const float base = static_cast<float>(1u << f.low_bits);
      // The byte values: one constant for every width of the graph and form.
      std::string byte_values;
      for (const Digits& d : low_bit_digits_) byte_values = d.key / 8 == key / 8 ? d.bytes : byte_values;
      if (byte_values.empty()) {
        uint8_t bytes[256];
        for (int b = 0; b < 256; ++b) bytes[b] = static_cast<uint8_t>(b);
        byte_values = constant(".b", onnx::kUint8, {256, 1}, bytes, 256);
      }
      Digits d{key, constant(".d", onnx::kFloat, {1, per_byte}, digits, 4 * static_cast<size_t>(per_byte)),
               constant(".m", onnx::kFloat, {}, &base, 4), byte_values, ""};
      d.table = chain(digit_table_chain(), byte_values, &d, "");
      low_bit_digits_.push_back(std::move(d));
      shared = &low_bit_digits_.back();
    }
    const std::string shape = constant(".s", onnx::kInt64, {static_cast<int64_t>(l.code_dims.size())}, l.code_dims.data(),
                                       8 * l.code_dims.size());
    return chain(low_bits_chain(), low, shared, shape);
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
    for (const Consumer& c : scope_.consumers(t)) {
      const NodeInfo& n = index_.nodes[c.node];
      if (n.op_type != "Transpose" || !n.domain.empty() || n.attribute("perm") || !perm_added_.insert(c.node).second) continue;
      Message attr;
      attr.string(onnx::attr::kName, "perm");
      attr.varint(onnx::attr::kType, onnx::attr::kTypeInts);
      attr.packed_int64(onnx::attr::kInts, reversed_perm(static_cast<int64_t>(t.dims.size())));
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

  void opset_edits(int64_t raised_opset) {
    if (raised_opset == 0) return;
    for (const OpsetImport& o : index_.opsets) {
      if (!o.domain.empty()) continue;
      Message m;
      m.string(onnx::opset::kDomain, "");
      m.varint(onnx::opset::kVersion, static_cast<uint64_t>(raised_opset));
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

  const ModelIndex& index_;
  const Scope& scope_;
  TensorData& data_;
  const Options& options_;
  const bool external_;
  Plan& plan_;
  std::set<std::string, NameOrder> names_;
  std::map<std::string, int32_t, NameOrder> suffix_;  // unique(): the last suffix tried for a base
  std::set<int32_t> perm_added_;          // Transpose nodes given an explicit perm
  struct Digits {
    int32_t key;  // graph, form (Constant nodes or initializers) and bits: (graph * 2 + form) * 8 + bits
    std::string digits, base, bytes, table;
  };
  std::vector<Digits> low_bit_digits_;  // the constants low_bits_nodes shares
  std::vector<Edit> input_edits_;
  uint64_t external_cursor_ = 0;
};

}  // namespace

void emit_edits(const ModelIndex& index, const Scope& scope, TensorData& data, const Options& options, bool external,
                int64_t raised_opset, Plan& plan) {
  Emitter(index, scope, data, options, external, plan).run(raised_opset);
}

}  // namespace onnx_shrink
