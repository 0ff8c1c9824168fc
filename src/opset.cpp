#include "opset.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace onnx_shrink {
namespace {
#include "opset_history.inc"

// Operator versions that only added types or attributes whose defaults keep the old behaviour, so
// that a model using the older version computes the same after the opset is raised (from the ONNX
// operator changelog). Anything doubtful is left out: raising is then refused, never unsafe.
// Left out on purpose: Softmax/LogSoftmax/Hardmax 13 (axis meaning), Squeeze/Unsqueeze/Split/
// ReduceSum 13 and the other Reduce* at 18 (axes moved to an input), Resize (modes changed),
// RoiAlign 16 (default coordinate mode), GridSample 20 and DFT 20.
constexpr struct {
  int version;
  const char* ops;
} kBehaviourKept[] = {
    {13, " Abs Add ArgMax ArgMin Cast Ceil Clip Concat Constant DepthToSpace DequantizeLinear Div Dropout Equal Erf "
         "Exp Expand Flatten Floor Gather GatherElements GatherND Gemm Greater Identity If IsNaN LRN Less Log Loop "
         "MatMul Max Mean MeanVarianceNormalization Min Mod Mul Neg NonZero Pad Pow QuantizeLinear Reciprocal "
         "ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSumSquare "
         "Relu Reshape ScatterElements ScatterND Shape Sigmoid Sign Size Slice SpaceToDepth Sqrt Sub Sum Tanh Tile "
         "Transpose "},
    {14, " Add BatchNormalization CumSum Div GRU Identity LSTM Mul RNN Relu Reshape Sub "},
    {15, " BatchNormalization Pow Shape "},
    {16, " GreaterOrEqual Identity If LeakyRelu LessOrEqual Loop PRelu Scan ScatterElements ScatterND Where "},
    {18, " LpPool OptionalGetElement OptionalHasElement Pad ScatterElements ScatterND "},
    {19, " AveragePool Cast CastLike Constant DequantizeLinear Equal Identity If Loop Pad QuantizeLinear Reshape Scan "
         "Shape Size "},
    {20, " ConstantOfShape IsInf IsNaN "},
    {21, " DequantizeLinear QLinearMatMul QuantizeLinear "},
};

bool behaviour_kept(const std::string& op, int version) {
  for (const auto& entry : kBehaviourKept) {
    if (entry.version == version && std::strstr(entry.ops, (" " + op + " ").c_str())) return true;
  }
  return false;
}

const OpHistory* find(const std::string& name) {
  for (const OpHistory& h : kOpsetHistory) {
    if (name == h.name) return &h;
  }
  return nullptr;
}
}  // namespace

int64_t ir_version_for_opset(int64_t opset) {
  // onnx/helper.py VERSION_TABLE: (IR version, highest ai.onnx opset) per release.
  static const int64_t table[][2] = {{3, 8}, {4, 9}, {5, 10}, {6, 11}, {7, 14}, {8, 18}, {9, 20}, {10, 22}, {11, 23}};
  for (const auto& row : table) {
    if (opset <= row[1]) return row[0];
  }
  return 11;
}

std::vector<std::string> ops_changed_between(const ModelIndex& index, int64_t from, int64_t to) {
  std::set<std::string> changed;  // sorted: the message lists them in a stable order
  for (const NodeInfo& node : index.nodes) {
    if (!node.domain.empty()) continue;
    const OpHistory* h = find(node.op_type);
    if (!h || to > kOpsetHistoryKnown) {
      changed.insert(node.op_type + " (no version history known)");
      continue;
    }
    for (int v : h->versions) {
      if (v == 0) break;
      if (v > from && v <= to && !behaviour_kept(node.op_type, v)) {
        changed.insert(node.op_type);
        break;
      }
    }
  }
  return {changed.begin(), changed.end()};
}

}  // namespace onnx_shrink
