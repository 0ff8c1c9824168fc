#include "opset.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace onnx_shrink {
namespace {
#include "opset_history.inc"

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
      if (v > from && v <= to) {
        changed.insert(node.op_type);
        break;
      }
    }
  }
  return {changed.begin(), changed.end()};
}

}  // namespace onnx_shrink
