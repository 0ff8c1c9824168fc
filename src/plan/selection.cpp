// Selection: what changes and how (see selection.h).
#include "plan/selection.h"

#include <cfloat>
#include <cmath>
#include <set>

#include "code_format.h"
#include "kernels/kernels.h"
#include "option_words.h"
#include "plan/channel_axes.h"
#include "plan/exact_values.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

void check_int8_opset(const ModelIndex& index) {
  const int64_t opset = index.opset(""), needed = required_opset(Form::Fold, Grouping::Tensor, 0);
  if (opset == 0) {
    throw Error(ErrorCode::Unsupported, "the model does not import the ai.onnx operator set, which the 8-bit form "
                                        "needs (Cast, Mul, Add); palette mode does not change the graph and works");
  }
  if (opset < needed) {
    throw Error(ErrorCode::Unsupported, "the model uses opset " + std::to_string(opset) + "; 8-bit weights need opset " +
                                            std::to_string(needed) + " or later (for broadcasting Mul and Add). "
                                            "Palette mode does not change the graph and works at any opset");
  }
}

namespace {

class Selector {
 public:
  Selector(const ModelIndex& index, const Scope& scope, TensorData& data, const Options& options, Progress* progress, Plan& plan)
      : index_(index), scope_(scope), data_(data), options_(options), progress_(progress), plan_(plan) {}

  void run() {
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
    // Names in the options are the model's: a typo is an error, not an option that does nothing.
    // Options::tensor_bits also takes only bits that Options::bits takes (the JS side names them:
    // core.js). Op types are not checked: one list may serve models that lack some of them.
    for (const auto& [name, bits] : options_.tensor_bits) {
      check_name("tensor bits", name, false);
      if (bits && !format_with_bits(bits)) throw Error(ErrorCode::BadOption, "tensor bits: no such bits for '" + name + "'");
    }
    for (const std::string& name : options_.exclude) check_name("exclude", name, false);
    for (const std::string& name : options_.exclude_nodes) check_name("exclude nodes", name, true);
    uint64_t scanned = 0;
    for (int32_t k : candidates) {
      candidate(k, !small.empty());
      scanned += TensorData::raw_size(index_.tensors[k]);
      if (progress_ && !progress_->report(candidate_bytes ? double(scanned) / double(candidate_bytes) : 1.0, "reading")) {
        throw Error(ErrorCode::Cancelled, "cancelled");
      }
    }
    choose_small(small);
  }

 private:
  // The bits a tensor's codes get: Options::tensor_bits for it, else Options::bits (0: auto).
  uint32_t bits_for(const TensorInfo& t) const {
    for (const auto& [name, bits] : options_.tensor_bits) {
      if (name == t.name) return bits;
    }
    return options_.bits;
  }

  // A tensor of at least min_elements values: its report entry, and its item if it changes.
  void candidate(int32_t k, bool small_tensors_exist) {
    const TensorInfo& t = index_.tensors[k];
    const std::vector<Consumer> readers = scope_.consumers(t);
    TensorReport tr = describe(t, readers);
    tr.reason = scope_.defined_twice(t) ? "its name is given to another tensor of the same graph" : keep_reason(t, readers);
    Item item;
    item.tensor = k;
    item.form = options_.form;
    std::string note, low_bits_note;
    const uint32_t bits = bits_for(t);
    if (tr.reason.empty()) {
      // Read it once now: NaN or infinity would make every scale meaningless. The 8-bit scheme
      // is chosen now too, since it decides the size of what replaces the tensor.
      data_.check(t);
      const uint8_t* values = data_.floats(t);
      const bool int8 = options_.mode == Mode::Int8;
      const Axes axes = int8 && t.dims.size() >= 2 ? channel_axes(index_, scope_, t, readers) : Axes{};
      float lo = 0, hi = 0;
      bool finite = true;
      if (axes.in >= 0 && axes.in < static_cast<int64_t>(t.dims.size())) {
        // The input channels' maxima, for the factors, in the same pass as the range.
        item.in_maxima = axis_maxima(values, t.dims, axes.in);
        lo = item.in_maxima.lo, hi = item.in_maxima.hi, finite = item.in_maxima.finite;
      } else {
        const kernels::Range r = kernels::range_of(values, static_cast<size_t>(t.elements));
        lo = r.lo, hi = r.hi, finite = r.finite;
      }
      tr.reason = range_reason(t, lo, hi, finite);
      item.lo = lo, item.hi = hi;
      if (tr.reason.empty() && int8) {
        // (Codebooks have 8-bit codes: fewer bits take uniform or separable codes.)
        item.layout = int8_layout(t, axes, values, note, bits == 0 || bits >= 8, item.in_maxima);
        item.layout.draw = options_.rounding_draw;
        item.layout.salt = static_cast<uint64_t>(k);
        if (bits && bits < 8) item.layout.code_bits = bits;
        low_bits_note = low_bits_reason(t, item.layout, std::max(std::fabs(lo), std::fabs(hi)), bits);
        // Auto bits go by the estimated SQNR (taken now, while the values are at hand), for
        // layouts of channels or blocks (the estimate's), when small tensors may pay for them.
        item.low_bits_allowed = low_bits_note.empty() && (bits ? bits > 8 : item.layout.axis >= 0);
        if (item.low_bits_allowed && bits == 0 && options_.small != SmallTensors::Keep && small_tensors_exist) {
          item.sqnr_estimate = estimate_sqnr_db(item.layout, values, t.dims);
        }
      }
    }
    Report& r = plan_.report;
    if (!tr.reason.empty()) {
      r.tensors.push_back(std::move(tr));
      return;
    }
    if (options_.mode == Mode::Int8) {
      item.action = Action::Int8;
      if (bits > 8) {
        // Given bits: none for the automatic allocation to add.
        if (item.low_bits_allowed) item.layout.low_bits = static_cast<int32_t>(format_with_bits(bits)->low_bits);
        if (!item.low_bits_allowed) note += (note.empty() ? "" : "; ") + low_bits_note;
        item.low_bits_allowed = false;
      }
      const Int8Layout& l = item.layout;
      tr.scheme = l.scheme();
      tr.axis = l.axis;
      tr.factor_axis = l.factor_axis;
      tr.block = l.block;
      if (!note.empty()) tr.reason = note;
    } else {
      item.action = Action::Palette;
      item.levels = options_.levels;
      item.choice = options_.scheme == Scheme::Uniform  ? palette::Choice::Uniform
                    : options_.scheme == Scheme::KMeans ? palette::Choice::KMeans
                                                        : palette::Choice::Auto;
      tr.scheme = kSchemeWords.word(options_.scheme);
    }
    tr.changed = true;
    item.report = static_cast<int32_t>(r.tensors.size());
    r.tensors.push_back(std::move(tr));
    plan_.items.push_back(std::move(item));
  }

  TensorReport describe(const TensorInfo& t, const std::vector<Consumer>& readers) const {
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
    return tr;
  }

  // Why values of this range (lo, hi; finite: none NaN or infinite) cannot be scaled, or "".
  static std::string range_reason(const TensorInfo& t, float lo, float hi, bool finite) {
    if (!finite) {
      return t.data_type == onnx::kDouble ? "contains NaN or infinity, or values beyond float32's range (codes are made in float32)"
                                          : "contains NaN or infinity";
    }
    // No float32 step spans it: every scheme's scale would be infinite.
    if (!std::isfinite(hi - lo)) return "its values span more than float32 can hold (max - min overflows)";
    // Its steps would be subnormal numbers, which have too few bits to scale codes by.
    if (hi > lo && std::max(std::fabs(lo), std::fabs(hi)) < 255 * FLT_MIN) return "its values are all within 3e-36 of zero, too small for float32 steps";
    return "";
  }

  // A function keeps the opsets it imports (they are not raised): the new nodes must exist there.
  std::string function_reason(int32_t g) const {
    const GraphInfo& root = index_.graphs[scope_.root(g)];
    if (!root.function || options_.mode != Mode::Int8) return "";
    const Grouping grouping = options_.block ? Grouping::Blocks : options_.scheme == Scheme::Tensor ? Grouping::Tensor : Grouping::Axis;
    const int64_t needed = required_opset(options_.form, grouping, 0);
    if (root.function_opset >= needed) return "";
    return "in " + root.path + ", which imports ai.onnx opset " + std::to_string(root.function_opset) + ", below the " +
           std::to_string(needed) + " its new nodes need";
  }

  // A node named `name`, or else a float tensor.
  void check_name(const char* option, const std::string& name, bool node) const {
    bool found = false;
    if (node) {
      for (const NodeInfo& n : index_.nodes) found |= n.name == name;
    } else {
      for (const TensorInfo& t : index_.tensors) found |= t.name == name && onnx::is_float_weight_type(t.data_type);
    }
    if (!found) throw Error(ErrorCode::BadOption, std::string(option) + ": the model has no " + (node ? "node" : "float tensor") + " named '" + name + "'");
  }

  std::string keep_reason(const TensorInfo& t, const std::vector<Consumer>& readers) const {
    for (const std::string& name : options_.exclude) {
      if (name == t.name) return "excluded by name";
    }
    if (scope_.shadowed(t)) return "its name is given in another graph too";
    if (const char* why = exact_reason(index_, scope_, readers)) return why;
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

  Int8Layout int8_layout(const TensorInfo& t, const Axes& axes, const uint8_t* values, std::string& note, bool codebooks,
                         const AxisMaxima& in_maxima) const {
    if (options_.scheme == Scheme::Tensor) {
      Int8Layout l;
      l.seed = true;
      l.code_dims = t.dims;
      return l;
    }
    if (options_.block > 0) return uniform_layout(t.dims, axes.out, options_.block, options_.form, note);
    return choose_int8_layout(values, t.dims, axes.out, axes.in, options_.form, options_.scheme == Scheme::Auto, codebooks, &in_maxima);
  }

  // Why a tensor keeps 8 bits when Options::bits asks for `bits` (0 for auto's 9th and 10th), or ""
  // when it may have more. Low bits need the fold form's float offsets, uniform or separable codes,
  // Mod where the nodes go, whole bytes of them, and values well inside their type's range (so that
  // no code needs moving inward: saturation.h).
  std::string low_bits_reason(const TensorInfo& t, const Int8Layout& l, float largest, uint32_t bits) const {
    if (options_.form != Form::Fold) return "8 bits: DequantizeLinear takes 8-bit codes";
    if (l.seed) return "8 bits";
    if (l.codebook) return "8 bits: a codebook's codes index its 256 levels";
    const CodeFormat* f = format_with_bits(bits > 8 ? bits : 9);
    if (t.elements % f->codes_per_low_byte() != 0) return "8 bits: its values do not fill whole bytes of low bits";
    if (!(largest <= onnx::largest_finite(t.data_type) / 4)) return std::string("8 bits: its values come near the largest ") + onnx::dtype_name(t.data_type);
    const int64_t opset = scope_.opset(t.graph), needed = required_opset(Form::Fold, grouping_of(l), f->low_bits);
    if (opset < needed) return "8 bits: the Mod that adds low bits needs opset " + std::to_string(needed) + " (here " + std::to_string(opset) + ")";
    return "";
  }

  // Small float32 tensors stored as float16 (SmallTensors), as items of their own among the others
  // (in tensor order, as the emitter expects).
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
      if (t.data_type != onnx::kFloat || scope_.defined_twice(t) || !keep_reason(t, scope_.consumers(t)).empty()) continue;
      // Worth a Cast node (its float16 tensor takes a short name: about 30 bytes more in all).
      if (t.elements < 64) continue;
      data_.check(t);
      if (!fits_float16(data_.floats(t), t.elements)) continue;
      while (large < plan_.items.size() && plan_.items[large].tensor < k) items.push_back(std::move(plan_.items[large++]));
      items.emplace_back();
      items.back().tensor = k;
      items.back().action = Action::Half;
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

  const ModelIndex& index_;
  const Scope& scope_;
  TensorData& data_;
  const Options& options_;
  Progress* progress_;
  Plan& plan_;
};

}  // namespace

void select_items(const ModelIndex& index, const Scope& scope, TensorData& data, const Options& options, Progress* progress,
                  Plan& plan) {
  Selector(index, scope, data, options, progress, plan).run();
}

}  // namespace onnx_shrink
