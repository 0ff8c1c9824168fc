// expand(): turns dequantization chains on constants back into plain float tensors.
//
// A chain starts at an integer constant and ends at the value the rest of the graph reads:
//   DequantizeLinear(codes, scale[, zero_point]) [-> Reshape(const)] [-> Cast(to float type)]
//   Cast(codes, to float) [-> Add(low bits)] -> Mul(const) [-> Add/Sub(const)] [-> Reshape(const)] [-> Mul(const)]
//       [-> Cast(to float type)]
//   Cast(codes, to int32) -> Gather(const table, .) -> Mul(const) [-> Cast(to float type)]   (codebooks)
//   Cast(float16 or bfloat16 constant, to float)                                    (small tensors)
// where the low bits of codes with more than 8 bits are a chain of their own, from a uint8 constant:
//   Cast(packed, to int32) -> Gather(digit table, .) -> Reshape(const), the digit table made from the
//       256 byte values by Cast(to float) -> Div(const) -> Floor -> Mod(const) -> Div(const) and
//       shared by the graph's chains of one width (it goes when every Gather of it goes);
//   Cast(packed, to float) -> Div(const) -> Floor -> Mod(const) -> Div(const) -> Reshape(const)
//       (files written before 2026-11-27)
// Every intermediate value must be read only by the next node of the chain. The chain's nodes are
// removed, its final value becomes a tensor (an initializer, or a Constant node where the codes
// were a Constant node), and constants nothing else reads are removed too. The values are
// computed as onnxruntime computes them: fp32 IEEE operations in the same order, a block of values
// at a time (expand/evaluate.cpp: the result is written once, no step keeps a copy of the tensor).
// A chain that the blocks do not take is left as it is: a step whose operand has more values than
// the chain, an Add or Sub that follows no Mul (or a Sub that no Mul follows), a Gather other than
// of 8-bit codes in a table of 256 or more, low bits in another form, more than 8 dimensions.
#include <algorithm>
#include <map>
#include <set>

#include "code_format.h"
#include "encode.h"
#include "expand/evaluate.h"
#include "int8_layout.h"
#include "kernels/kernels.h"
#include "name_order.h"
#include "plan/scope.h"
#include "proto/onnx_fields.h"
#include "write.h"

namespace onnx_shrink {

namespace {

using expansion::Array;
using expansion::Chain;
using expansion::Expander;
using expansion::Step;
using expansion::broadcast;
using expansion::is_integer_type;

class ExpandEncoder final : public Encoder {
 public:
  ExpandEncoder(const ModelIndex& index, TensorData& data, Plan& plan, Expander& expander, const std::vector<Chain>& chains)
      : Encoder(index, data, plan), expander_(expander), chains_(chains) {}
  void write(const Payload& p, Sink& out) override {
    if (p.kind != PayloadKind::Expanded) return Encoder::write(p, out);
    // (The writer checks that the sizes add up to the plan's.)
    std::vector<int64_t> dims;
    expander_.stream(chains_[p.item], &out, dims);  // planned: it does
  }

 private:
  Expander& expander_;
  const std::vector<Chain>& chains_;
};

class ExpandPlanner {
  // A digit table's nodes and constants (code_format.h's digit_table_chain).
  struct DigitTable {
    int32_t nodes[5] = {-1, -1, -1, -1, -1};      // Div, Mod, Floor, Div, Cast: from the table back
    int32_t constants[5] = {-1, -1, -1, -1, -1};  // the byte values, the digits, -, the base (twice)
    int32_t graph = -1;
    uint32_t bits = 0;  // of a digit; 0: the nodes there do not make a digit table
  };
 public:
  ExpandPlanner(const ModelIndex& index, TensorData& data, Expander& expander)
      : index_(index), data_(data), expander_(expander), scope_(index) {}

  Plan run(std::vector<Chain>& chains) {
    Plan plan;
    plan.report.mode = "expand";
    plan.report.ir_version = plan.report.ir_version_after = index_.ir_version;
    for (const OpsetImport& o : index_.opsets) plan.report.opsets.emplace_back(o.domain, o.version);
    plan.report.producer = index_.producer;
    plan.report.model_bytes_before = index_.size;
    plan.report.external_bytes_before = index_.external_bytes();
    index_names();
    for (size_t g = 0; g < index_.graphs.size(); ++g) find_chains(static_cast<int32_t>(g), chains);
    const std::vector<const DigitTable*> tables = taken_tables();
    for (size_t i = 0; i < chains.size(); ++i) edits(static_cast<int32_t>(i), chains[i], plan);
    for (const DigitTable* t : tables) remove_table(*t, plan);
    inline_external_data(plan);
    plan.output_size = finish_layout(index_, plan.edits);
    plan.report.model_bytes_after = plan.output_size;
    plan.report.unchanged = plan.edits.empty();
    plan.report.tensors_changed = static_cast<uint32_t>(chains.size());
    plan.report.summary = chains.empty() ? "Nothing to expand: no dequantization of constants found."
                                         : "Expanded " + std::to_string(chains.size()) + " tensor" + (chains.size() == 1 ? "" : "s") +
                                               ": model " + std::to_string(index_.size) + " -> " + std::to_string(plan.output_size) + " bytes.";
    return plan;
  }

 private:
  void index_names() {
    for (size_t k = 0; k < index_.nodes.size(); ++k) {
      const NodeInfo& n = index_.nodes[k];
      if (n.value_tensor >= 0 && !n.outputs.empty()) constants_[key(n.graph, n.outputs[0])] = n.value_tensor;
      for (const std::string& out : n.outputs) producers_[key(n.graph, out)] = static_cast<int32_t>(k);
    }
    for (size_t t = 0; t < index_.tensors.size(); ++t) {
      if (index_.tensors[t].node < 0) constants_[key(index_.tensors[t].graph, index_.tensors[t].name)] = static_cast<int32_t>(t);
    }
    for (const GraphInfo& g : index_.graphs) {
      for (const ValueField& v : g.outputs) graph_outputs_.insert(v.info.name);
    }
  }

  static std::string key(int32_t graph, const std::string& name) { return std::to_string(graph) + "/" + name; }

  int32_t constant(int32_t graph, const std::string& name) const {
    auto it = constants_.find(key(graph, name));
    return it == constants_.end() ? -1 : it->second;
  }

  // The only node reading `name`, if it is in `graph` and nothing else (no graph output) reads it.
  int32_t sole_reader(int32_t graph, const std::string& name) const {
    if (graph_outputs_.count(name)) return -1;
    const std::vector<Consumer>* readers = scope_.readers(name);
    if (!readers || readers->size() != 1) return -1;
    const int32_t n = (*readers)[0].node;
    return index_.nodes[n].graph == graph ? n : -1;
  }

  void find_chains(int32_t g, std::vector<Chain>& chains) {
    for (int32_t id : index_.graphs[g].nodes) {
      const NodeInfo& n = index_.nodes[id];
      if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) continue;
      const int32_t codes = constant(g, n.inputs[0]);
      if (codes < 0) continue;
      const int32_t codes_type = index_.tensors[codes].data_type;
      const bool half = codes_type == onnx::kFloat16 || codes_type == onnx::kBfloat16;
      if (!is_integer_type(codes_type) && !(half && n.op_type == "Cast")) continue;
      if (sole_reader(g, n.inputs[0]) != id) continue;  // codes read elsewhere too: they must stay
      Chain c;
      c.graph = g;
      c.codes = codes;
      std::string value = n.outputs[0];
      if (n.op_type == "DequantizeLinear") {
        if (n.inputs.size() < 2) continue;
        Step s{Step::Dequantize, id};
        s.constant = constant(g, n.inputs[1]);
        s.zero = n.inputs.size() > 2 && !n.inputs[2].empty() ? constant(g, n.inputs[2]) : -1;
        if (s.constant < 0 || (n.inputs.size() > 2 && !n.inputs[2].empty() && s.zero < 0)) continue;
        s.axis = index_.opset("") >= 13 ? n.int_attribute("axis", 1) : 1;  // DequantizeLinear's default axis is 1
        s.block = n.int_attribute("block_size");
        c.steps.push_back(s);
        c.out_type = index_.tensors[s.constant].data_type;
      } else if (n.op_type == "Cast") {
        Step s{Step::CastTo, id};
        s.to = static_cast<int32_t>(n.int_attribute("to"));
        // Cast alone is not a dequantization: a Mul or Add must follow (or, for indices, a Gather);
        // except the Cast of a float16 constant to float32 (a small tensor).
        const int32_t next = sole_reader(g, value);
        const std::string next_op = next >= 0 ? index_.nodes[next].op_type : "";
        const bool to_float = onnx::is_float_weight_type(s.to);
        if (half ? !(s.to == onnx::kFloat || s.to == onnx::kDouble)
                 : !(to_float && (next_op == "Mul" || next_op == "Add")) && !((s.to == onnx::kInt32 || s.to == onnx::kInt64) && next_op == "Gather")) {
          continue;
        }
        c.steps.push_back(s);
        c.out_type = to_float ? s.to : onnx::kFloat;
      } else {
        continue;
      }
      // Follow the chain. A file can loop it back on itself (an output name given twice), and
      // chains can share a tail: a node already in it, or a length no dequantization has, ends it.
      for (;;) {
        const int32_t next = sole_reader(g, value);
        if (next < 0 || c.steps.size() >= 16) break;
        if (std::any_of(c.steps.begin(), c.steps.end(), [&](const Step& s) { return s.node == next; })) break;
        const NodeInfo& m = index_.nodes[next];
        Step s{Step::Mul, next};
        if (!step_of(m, s.kind)) break;
        if (s.kind == Step::Mul || s.kind == Step::Add || s.kind == Step::Sub) {
          if (m.inputs.size() != 2) break;
          const int other = m.inputs[0] == value ? 1 : 0;
          if (s.kind == Step::Sub && other == 0) break;  // const - x is not handled
          s.constant = constant(g, m.inputs[other]);
          if (s.constant < 0 && s.kind == Step::Add && part_of(g, m.inputs[other], next, c.steps)) {
            s.kind = Step::AddPart;
          } else if (s.constant < 0 || !onnx::is_float_weight_type(index_.tensors[s.constant].data_type)) {
            break;
          }
        } else if (s.kind == Step::Lookup) {
          if (m.inputs.size() != 2 || m.inputs[1] != value || m.int_attribute("axis") != 0) break;
          s.constant = constant(g, m.inputs[0]);
          if (s.constant < 0 || index_.tensors[s.constant].dims.size() != 1 ||
              !onnx::is_float_weight_type(index_.tensors[s.constant].data_type)) {
            break;
          }
          c.out_type = index_.tensors[s.constant].data_type;
        } else if (s.kind == Step::Reshape) {
          if (m.inputs.size() < 2 || m.inputs[0] != value) break;
          s.constant = constant(g, m.inputs[1]);
          if (s.constant < 0) break;
        } else if (s.kind == Step::CastTo) {
          s.to = static_cast<int32_t>(m.int_attribute("to"));
          if (!onnx::is_float_weight_type(s.to)) break;
          c.out_type = s.to;
        } else {
          break;
        }
        c.steps.push_back(s);
        value = m.outputs[0];
      }
      if (c.steps.size() < (n.op_type == "Cast" && !half ? 2u : 1u)) continue;
      if (c.steps[0].kind == Step::CastTo && !onnx::is_float_weight_type(c.steps[0].to) &&
          (c.steps.size() < 2 || c.steps[1].kind != Step::Lookup)) {
        continue;
      }
      c.output = value;
      if (!expander_.stream(c, nullptr, c.out_dims)) continue;  // a form the blocks do not take
      for (const Step& s : c.steps) taken_.insert(s.node);
      chains.push_back(std::move(c));
    }
  }

  // The step a node of the default domain with one output is, by its op (code_format.h's chain ops).
  static bool step_of(const NodeInfo& n, Step::Kind& kind) {
    ChainOp op;
    if (!n.domain.empty() || n.outputs.size() != 1 || !chain_op(n.op_type, op)) return false;
    kind = expansion::step_kind(op);
    return true;
  }

  // The low bits of codes over 8 bits, a chain of their own ending at `value`, which only node
  // `reader` reads, found walking back from `value` and appended to `steps`: a PartBegin (the
  // packed bytes; `block`: the steps that follow), then a step for each node, in either form:
  //   Reshape(const) <- Gather(digit table, .) <- Cast(a uint8 constant, to int32)   (code_format.h's
  //       low_bits_chain; PartBegin's `axis`: the bits of a digit, from the table);
  //   Reshape(const) <- Div(const) <- Mod(const, fmod) <- Floor <- Div(const) <- Cast(a uint8 constant,
  //       to float)   (files written before 2026-11-27).
  bool part_of(int32_t g, std::string value, int32_t reader, std::vector<Step>& steps) {
    static const Step::Kind gathered[] = {Step::Reshape, Step::Lookup, Step::CastTo};
    static const Step::Kind unpacked[] = {Step::Reshape, Step::Div, Step::Mod, Step::Floor, Step::Div, Step::CastTo};
    Step part[7] = {{Step::PartBegin}};
    int count = 3;
    int32_t first = reader;
    std::string packed = walk_back(g, value, first, gathered, count, part + 1);
    if (packed.empty()) {
      first = reader, count = 6;
      packed = walk_back(g, value, first, unpacked, count, part + 1);
    }
    part[0].constant = constant(g, packed);  // (its type, and the Cast's, are checked by Expander::stream)
    if (packed.empty() || part[0].constant < 0 || sole_reader(g, packed) != first) return false;
    part[0].block = count;
    if (count == 3) part[0].axis = digit_table_at(g, index_.nodes[part[2].node].inputs[0]);
    if (count == 3 && !part[0].axis) return false;
    for (int k = 0; k <= count; ++k) steps.push_back(part[k]);
    return true;
  }

  // Walks back from `value` over `count` nodes of the kinds `back` (the last node's first), each
  // the only reader of the one before it, `reader` the last one's (-1: any), none taken yet, with
  // a constant second operand where there is one (a Gather's is its indices, walked on; its table
  // is not checked here; a Mod's needs fmod). Fills `steps` in chain order, and `reader` with the
  // first node; returns the first node's input, or "" if the nodes are not those.
  std::string walk_back(int32_t g, std::string value, int32_t& reader, const Step::Kind* back, int count, Step* steps) {
    for (int k = 0; k < count; ++k) {
      auto it = producers_.find(key(g, value));
      if ((reader >= 0 || k > 0) && sole_reader(g, value) != reader) return "";
      if (it == producers_.end() || taken_.count(it->second)) return "";
      const NodeInfo& m = index_.nodes[it->second];
      Step& s = steps[count - 1 - k];
      s = Step{back[k]};
      s.node = reader = it->second;
      const size_t operands = back[k] == Step::Floor || back[k] == Step::CastTo ? 1 : 2;
      if (!step_of(m, s.kind) || s.kind != back[k] || m.inputs.size() != operands || (s.kind == Step::Mod && m.int_attribute("fmod") != 1) ||
          (s.kind == Step::Lookup && m.int_attribute("axis") != 0) ||
          (operands == 2 && s.kind != Step::Lookup && (s.constant = constant(g, m.inputs[1])) < 0)) {
        return "";
      }
      s.to = static_cast<int32_t>(m.int_attribute("to"));
      value = m.inputs[s.kind == Step::Lookup ? 1 : 0];
    }
    return value;
  }

  // A digit table (code_format.h's digit_table_chain) ending at `value`: Div(const) <- Mod(const,
  // fmod) <- Floor <- Div(const) <- Cast(the 256 byte values, to float), each read only by the
  // next, with digits and base of one width: the bits of a digit, or 0. Remembered by its last node.
  uint32_t digit_table_at(int32_t g, const std::string& value) {
    auto last = producers_.find(key(g, value));
    if (last == producers_.end()) return 0;
    for (const DigitTable& known : digit_tables_) {
      if (known.nodes[0] == last->second) return known.bits;
    }
    digit_tables_.emplace_back();  // bits 0 (not a table) until it checks out
    DigitTable& t = digit_tables_.back();
    t.nodes[0] = last->second;
    static const Step::Kind back[] = {Step::Div, Step::Mod, Step::Floor, Step::Div, Step::CastTo};
    Step steps[5];
    int32_t reader = -1;
    const std::string bytes = walk_back(g, value, reader, back, 5, steps);
    const int32_t byte_values = bytes.empty() ? -1 : constant(g, bytes);
    if (byte_values < 0 || steps[0].to != onnx::kFloat) return 0;
    for (int k = 0; k < 5; ++k) t.nodes[k] = steps[4 - k].node, t.constants[k] = steps[k].constant;
    t.constants[0] = byte_values;  // (read by the tables of every width: not only this one)
    t.graph = g;
    // The values: bytes 0 ... 255 in a column (the table's rows); digits 1, 2^bits, ...; the same base twice.
    const Array b = expander_.load(t.constants[0]);
    if (index_.tensors[t.constants[0]].data_type != onnx::kUint8 || b.dims != std::vector<int64_t>{256, 1}) return 0;
    for (int k = 0; k < 256; ++k) {
      if (b.values[k] != static_cast<float>(k)) return 0;
    }
    t.bits = expander_.digit_bits(steps[1].constant, steps[3].constant, steps[4].constant);
    return t.bits;
  }

  // The digit tables whose every reader is a chain's Gather: their nodes are taken too (so that
  // their constants count as read by nothing left), and go after the chains' edits.
  std::vector<const DigitTable*> taken_tables() {
    std::vector<const DigitTable*> tables;
    for (const DigitTable& t : digit_tables_) {
      const std::string& output = index_.nodes[t.nodes[0]].outputs[0];
      if (!t.bits || graph_outputs_.count(output)) continue;
      const std::vector<Consumer>* readers = scope_.readers(output);
      size_t taken = 0;
      for (size_t k = 0; readers && k < readers->size(); ++k) taken += taken_.count((*readers)[k].node);
      if (!readers || taken != readers->size()) continue;
      for (const int32_t node : t.nodes) taken_.insert(node);
      tables.push_back(&t);
    }
    return tables;
  }

  void remove_table(const DigitTable& t, Plan& plan) {
    const int32_t container = index_.graphs[t.graph].container;
    for (const int32_t node : t.nodes) remove_field(index_.nodes[node].field, container, plan);
    for (const int32_t c : t.constants) remove_constant(c, plan);
  }

  void edits(int32_t i, Chain& c, Plan& plan) {
    const TensorInfo& codes = index_.tensors[c.codes];
    const GraphInfo& g = index_.graphs[c.graph];
    const int bytes = onnx::element_bits(c.out_type) / 8;
    Payload p;
    p.kind = PayloadKind::Expanded;
    p.item = i;
    p.size = element_count(c.out_dims) * bytes;
    Message tensor = build::tensor(c.output, c.out_type, c.out_dims);
    build::data(tensor, p, "");
    // The new tensor takes the codes' place; the chain's nodes go.
    Edit e;
    e.container = g.container;
    if (codes.node >= 0) {
      const Message node = build::node("Constant", c.output + "::expanded", {}, {c.output}, {{"value", 0, &tensor}});
      e.begin = index_.nodes[codes.node].field.begin;
      e.end = index_.nodes[codes.node].field.end;
      e.chunks.push_back(node.as_field(g.node_field));
    } else {
      e.begin = codes.field.begin;
      e.end = codes.field.end;
      e.chunks.push_back(tensor.as_field(onnx::graph::kInitializer));
    }
    plan.edits.push_back(std::move(e));
    removed_.insert(c.codes);
    remove_steps(c, g, plan);
    if (codes.node < 0) remove_input(codes, plan);
    TensorReport r;
    r.name = c.output;
    r.graph = g.path;
    r.location = codes.node >= 0 ? "constant" : "initializer";
    r.dtype = onnx::dtype_name(c.out_type);
    r.shape = c.out_dims;
    r.bytes_before = TensorData::raw_size(codes);
    r.bytes_after = p.size;
    r.changed = true;
    r.scheme = "expanded";
    r.exact = true;
    plan.report.tensors.push_back(r);
  }

  // The chain's nodes, and its constants that nothing else reads (a part's codes among them).
  void remove_steps(const Chain& c, const GraphInfo& g, Plan& plan) {
    for (const Step& s : c.steps) {
      if (s.node >= 0) remove_field(index_.nodes[s.node].field, g.container, plan);
      for (int32_t t : {s.constant, s.zero}) remove_constant(t, plan);
    }
  }

  // A constant (tensor t) that nothing left reads goes; -1: none.
  void remove_constant(int32_t t, Plan& plan) {
    if (t < 0 || removed_.count(t) || kept_.count(t)) return;
    if (still_read(index_.tensors[t])) {  // once per tensor: chains may share their scales
      kept_.insert(t);
      return;
    }
    removed_.insert(t);
    const TensorInfo& x = index_.tensors[t];
    remove_field(x.node >= 0 ? index_.nodes[x.node].field : x.field, index_.graphs[x.graph].container, plan);
    remove_input(x, plan);
  }

  // Tensors left in external data files would be looked for beside the result, wherever it is
  // written: their data comes inline, so the expanded model stands alone, as a shrunk one does.
  void inline_external_data(Plan& plan) {
    for (size_t k = 0; k < index_.tensors.size(); ++k) {
      const TensorInfo& t = index_.tensors[k];
      if (t.kind != DataKind::External || !t.odd.empty() || removed_.count(static_cast<int32_t>(k))) continue;
      data_.check(t);
      Item item;
      item.tensor = static_cast<int32_t>(k);
      plan.items.push_back(item);
      Payload p;
      p.item = static_cast<int32_t>(plan.items.size() - 1);
      p.size = TensorData::raw_size(t);
      Message data;
      build::data(data, p, "");
      build::replace_data(index_, t, data, plan.edits);
    }
  }

  bool still_read(const TensorInfo& t) const {
    const std::string& name = t.name;
    if (graph_outputs_.count(name)) return true;
    const std::vector<Consumer>* readers = scope_.readers(name);
    if (!readers) return false;
    for (const Consumer& reader : *readers) {
      if (!taken_.count(reader.node)) return true;
    }
    return false;
  }

  void remove_field(const Range& field, int32_t container, Plan& plan) {
    if (!removed_fields_.insert(field.begin).second) return;
    Edit e;
    e.begin = field.begin;
    e.end = field.end;
    e.container = container;
    plan.edits.push_back(std::move(e));
  }

  // Initializers listed as graph inputs (IR < 4) leave the input list with them.
  void remove_input(const TensorInfo& t, Plan& plan) {
    if (t.node >= 0) return;
    const GraphInfo& g = index_.graphs[t.graph];
    for (const ValueField& v : g.inputs) {
      if (v.info.name == t.name) remove_field(v.field, g.container, plan);
    }
  }

  const ModelIndex& index_;
  TensorData& data_;
  Expander& expander_;
  const Scope scope_;
  std::map<std::string, int32_t, NameOrder> constants_;
  std::map<std::string, int32_t, NameOrder> producers_;  // graph/name -> the node that outputs it
  std::set<std::string, NameOrder> graph_outputs_;
  std::set<int32_t> taken_, removed_, kept_;
  std::vector<DigitTable> digit_tables_;  // every one looked at (the few a graph has), by its last node
  std::set<uint64_t> removed_fields_;
};

}  // namespace

Report expand(const Source& model, Sink& out, const Io& io) {
  proto::Window window(model);
  const ModelIndex index = index_model(window);
  TensorData data(window, io.external);
  Expander expander(index, data, window);
  std::vector<Chain> chains;
  Plan plan = ExpandPlanner(index, data, expander).run(chains);
  ExpandEncoder encoder(index, data, plan, expander, chains);
  write_output(window, plan, encoder, out, io.external_sink, io.progress);
  return std::move(plan.report);
}

}  // namespace onnx_shrink
