// Channel axes of a weight, from the ops that read it (see channel_axes.h).
#include "plan/channel_axes.h"

#include <cctype>
#include <string>

namespace onnx_shrink {

namespace {

// A product's operands: B is [.., in, out] and A is [.., out, in]; `transposed` swaps the two.
Axes matmul_axes(uint32_t input, int64_t rank, bool transposed) {
  if (input > 1) return {};
  const bool out_last = (input == 1) != transposed;
  return out_last ? Axes{rank - 1, rank - 2} : Axes{rank - 2, rank - 1};
}

bool transposed(const NodeInfo& n, uint32_t input) { return n.int_attribute(input == 1 ? "transB" : "transA") != 0; }

// Einsum ("bsc,cd->bsd"): the operand's rightmost label that the output keeps is its output
// channel, the rightmost one summed over its input channel. Ellipses, repeated labels or an
// implicit output: no axes.
Axes einsum_axes(const NodeInfo& n, uint32_t input, int64_t rank) {
  const Attribute* equation = n.attribute("equation");
  if (!equation) return {};
  std::string e;
  for (char ch : equation->s) if (ch != ' ') e += ch;
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

// One op's rule: the axes of the weight it reads at `input` (of rank `rank`), or {} for none.
struct Rule {
  const char* domain;  // "" = ai.onnx
  const char* op;
  Axes (*axes)(const NodeInfo& n, uint32_t input, int64_t rank);
};

// Every op whose weights have known channel axes. onnxruntime's fused operators (com.microsoft),
// which its transformer optimizer and some converters write, lay weights out as the standard ops'
// (Attention's as a MatMul's B: [in, 3 * hidden]).
const Rule kRules[] = {
    {"", "Conv", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 ? Axes{0, 1} : Axes{}; }},
    {"", "DeformConv", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 ? Axes{0, 1} : Axes{}; }},
    {"", "ConvTranspose",
     [](const NodeInfo& n, uint32_t i, int64_t) { return i != 1 ? Axes{} : n.int_attribute("group", 1) == 1 ? Axes{1, 0} : Axes{0, -1}; }},
    {"", "MatMul", [](const NodeInfo&, uint32_t i, int64_t rank) { return matmul_axes(i, rank, false); }},
    {"", "Gemm", [](const NodeInfo& n, uint32_t i, int64_t) { return matmul_axes(i, 2, transposed(n, i)); }},
    {"", "Gather",
     [](const NodeInfo& n, uint32_t i, int64_t rank) {
       const int64_t axis = n.int_attribute("axis", 0);
       return i == 0 ? Axes{axis < 0 ? axis + rank : axis, -1} : Axes{};
     }},
    {"", "Einsum", einsum_axes},
    {"", "LSTM", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 || i == 2 ? Axes{1, 2} : Axes{}; }},
    {"", "GRU", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 || i == 2 ? Axes{1, 2} : Axes{}; }},
    {"", "RNN", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 || i == 2 ? Axes{1, 2} : Axes{}; }},
    {"com.microsoft", "FusedConv", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 ? Axes{0, 1} : Axes{}; }},
    {"com.microsoft", "FusedGemm", [](const NodeInfo& n, uint32_t i, int64_t) { return matmul_axes(i, 2, transposed(n, i)); }},
    {"com.microsoft", "FusedMatMul",
     [](const NodeInfo& n, uint32_t i, int64_t rank) {
       const bool batch = n.int_attribute("transBatchA") != 0 || n.int_attribute("transBatchB") != 0;
       return batch ? Axes{} : matmul_axes(i, rank, transposed(n, i));
     }},
    {"com.microsoft", "Attention", [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 ? Axes{1, 0} : Axes{}; }},
    {"com.microsoft", "LongformerAttention",
     [](const NodeInfo&, uint32_t i, int64_t) { return i == 1 || i == 4 ? Axes{1, 0} : Axes{}; }},
    {"com.microsoft", "DecoderAttention",
     [](const NodeInfo&, uint32_t i, int64_t) { return i == 2 || i == 3 ? Axes{1, 0} : Axes{}; }},
    {"com.microsoft", "EmbedLayerNormalization",  // embedding rows
     [](const NodeInfo&, uint32_t i, int64_t) { return i >= 2 && i <= 4 ? Axes{0, -1} : Axes{}; }},
};

const Rule* rule_for(const NodeInfo& n) {
  for (const Rule& r : kRules) {
    if (n.op_type == r.op && n.domain == r.domain) return &r;
  }
  return nullptr;
}

bool is_permutation(const std::vector<int64_t>& perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank) return false;
  std::vector<uint8_t> seen(perm.size());
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return false;
    seen[static_cast<size_t>(p)] = true;
  }
  return true;
}

class AxisSearch {
 public:
  AxisSearch(const ModelIndex& index, const Scope& scope) : index_(index), scope_(scope) {}

  Axes of(const Consumer& c, int64_t rank, int depth) {
    // The readers looked at, at most: names read by many nodes at each step (which a hostile file
    // can have) would otherwise take their product in time.
    if (--budget_ < 0) return {};
    const NodeInfo& n = index_.nodes[c.node];
    if (const Rule* r = rule_for(n)) return r->axes(n, c.input, rank);
    if (n.domain == "com.microsoft") return {};
    if (!n.domain.empty()) return function_call(n, c.input, rank, depth);
    return look_through(n, c.input, rank, depth);
  }

 private:
  // Ops that do not move values (fp16 weights often sit behind a Cast), and a Transpose, mapping
  // its reader's axes back to the weight's (converters leave one in front of a kernel stored as
  // [kh, kw, in, out]).
  Axes look_through(const NodeInfo& n, uint32_t input, int64_t rank, int depth) {
    const bool transpose = n.op_type == "Transpose" && input == 0;
    if (!(n.op_type == "Cast" || n.op_type == "Identity" || transpose) || depth >= 4 || n.outputs.empty()) return {};
    const Attribute* given = transpose ? n.attribute("perm") : nullptr;
    const std::vector<int64_t> perm = given ? given->ints : reversed_perm(rank);
    if (transpose && !is_permutation(perm, rank)) return {};
    const std::vector<Consumer>* next = scope_.readers(n.outputs[0]);
    if (!next) return {};
    for (const Consumer& c : *next) {
      const Axes a = of(c, rank, depth + 1);
      if (a.out < 0) continue;
      if (!transpose) return a;
      if (a.out >= rank || a.in >= rank) return {};  // a reader's axis past the weight's rank
      return {perm[static_cast<size_t>(a.out)], a.in >= 0 ? perm[static_cast<size_t>(a.in)] : -1};
    }
    return {};
  }

  // A call of a model-local function: what the readers of that input in its body want.
  Axes function_call(const NodeInfo& n, uint32_t input, int64_t rank, int depth) {
    const int32_t g = scope_.function(n.domain, n.op_type);
    if (depth >= 4 || g < 0) return {};
    const GraphInfo& f = index_.graphs[g];
    const std::vector<Consumer>* next = input < f.function_inputs.size() ? scope_.readers(f.function_inputs[input]) : nullptr;
    if (!next) return {};
    for (const Consumer& c : *next) {
      const Axes a = scope_.inside(index_.nodes[c.node].graph, g) ? of(c, rank, depth + 1) : Axes{};
      if (a.out >= 0) return a;
    }
    return {};
  }

  const ModelIndex& index_;
  const Scope& scope_;
  int budget_ = 256;
};

}  // namespace

Axes channel_axes(const ModelIndex& index, const Scope& scope, const TensorInfo& t, const std::vector<Consumer>& readers) {
  const int64_t rank = static_cast<int64_t>(t.dims.size());
  AxisSearch search(index, scope);
  for (const Consumer& c : readers) {
    const Axes a = search.of(c, rank, 0);
    if (a.out >= 0) return a;
  }
  // The PyTorch convention, [out, in, ...], after any leading axes of 1: a position embedding
  // [1, positions, width] added to the activations gets a scale per position.
  int64_t out = 0;
  while (out + 2 < rank && t.dims[static_cast<size_t>(out)] == 1) ++out;
  return {out, out + 1 < rank ? out + 1 : -1};
}

std::vector<std::string> channel_axis_ops() {
  std::vector<std::string> ops;
  for (const Rule& r : kRules) ops.push_back(std::string(r.domain) + ":" + r.op);
  return ops;
}

std::vector<int64_t> reversed_perm(int64_t rank) {
  std::vector<int64_t> axes;
  for (int64_t a = rank - 1; a >= 0; --a) axes.push_back(a);
  return axes;
}

}  // namespace onnx_shrink
