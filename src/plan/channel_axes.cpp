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

// How a rule turns the node into axes.
enum class Kind : uint8_t {
  Fixed,          // always `out` and `in`
  ConvTranspose,  // [in, out / group, ...]: (1, 0) with one group, else (0, none)
  MatMul,         // A [.., out, in], B [.., in, out]
  Gemm,           // the same, of rank 2, swapped by transA / transB
  FusedMatMul,    // MatMul's, swapped by transA / transB; none with batch axes transposed
  Gather,         // the rows along `axis`
  Einsum,         // from the equation
};

// One op's rule: which of its inputs are weights (a bit per input), and their axes.
struct Rule {
  const char* domain;  // "" = ai.onnx
  const char* op;
  uint32_t inputs;     // bit i: input i is a weight
  Kind kind;
  int8_t out = -1, in = -1;  // Kind::Fixed
};

// Every op whose weights have known channel axes, one line each. onnxruntime's fused operators
// (com.microsoft), which its transformer optimizer and some converters write, lay weights out as the
// standard ops' (Attention's as a MatMul's B: [in, 3 * hidden]). (Data, not functions: a table of
// function pointers costs the WebAssembly module an indirect-call stub per signature.)
const Rule kRules[] = {
    {"", "Conv", 1u << 1, Kind::Fixed, 0, 1},
    {"", "DeformConv", 1u << 1, Kind::Fixed, 0, 1},
    {"", "ConvTranspose", 1u << 1, Kind::ConvTranspose},
    {"", "MatMul", 3u, Kind::MatMul},
    {"", "Gemm", 3u, Kind::Gemm},
    {"", "Gather", 1u, Kind::Gather},
    {"", "Einsum", ~0u, Kind::Einsum},
    {"", "LSTM", 6u, Kind::Fixed, 1, 2},  // W and R: [directions, gates * hidden, input]
    {"", "GRU", 6u, Kind::Fixed, 1, 2},
    {"", "RNN", 6u, Kind::Fixed, 1, 2},
    {"com.microsoft", "FusedConv", 1u << 1, Kind::Fixed, 0, 1},
    {"com.microsoft", "FusedGemm", 3u, Kind::Gemm},
    {"com.microsoft", "FusedMatMul", 3u, Kind::FusedMatMul},
    {"com.microsoft", "Attention", 1u << 1, Kind::Fixed, 1, 0},
    {"com.microsoft", "LongformerAttention", (1u << 1) | (1u << 4), Kind::Fixed, 1, 0},
    {"com.microsoft", "DecoderAttention", (1u << 2) | (1u << 3), Kind::Fixed, 1, 0},
    {"com.microsoft", "EmbedLayerNormalization", (1u << 2) | (1u << 3) | (1u << 4), Kind::Fixed, 0, -1},  // embedding rows
};

const Rule* rule_for(const NodeInfo& n) {
  for (const Rule& r : kRules) {
    if (n.op_type == r.op && n.domain == r.domain) return &r;
  }
  return nullptr;
}

// The axes rule `r` gives the weight node `n` reads at `input`.
Axes apply(const Rule& r, const NodeInfo& n, uint32_t input, int64_t rank) {
  if (input >= 32 || !((r.inputs >> input) & 1)) return {};
  switch (r.kind) {
    case Kind::Fixed: return {r.out, r.in};
    case Kind::ConvTranspose: return n.int_attribute("group", 1) == 1 ? Axes{1, 0} : Axes{0, -1};
    case Kind::MatMul: return matmul_axes(input, rank, false);
    case Kind::Gemm: return matmul_axes(input, 2, transposed(n, input));
    case Kind::FusedMatMul:
      if (n.int_attribute("transBatchA") != 0 || n.int_attribute("transBatchB") != 0) return {};
      return matmul_axes(input, rank, transposed(n, input));
    case Kind::Gather: {
      const int64_t axis = n.int_attribute("axis", 0);
      return {axis < 0 ? axis + rank : axis, -1};
    }
    case Kind::Einsum: return einsum_axes(n, input, rank);
  }
  return {};
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
    if (const Rule* r = rule_for(n)) return apply(*r, n, c.input, rank);
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
