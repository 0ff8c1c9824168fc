// Scope: readers by name, subgraph ranges and names given twice (see scope.h).
#include "plan/scope.h"

#include <algorithm>

namespace onnx_shrink {

Scope::Scope(const ModelIndex& index) : index_(index) {
  for (const GraphInfo& g : index.graphs) {  // graph by graph: each name's readers come sorted by graph
    for (int32_t k : g.nodes) {
      const NodeInfo& n = index.nodes[k];
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (!n.inputs[i].empty()) readers_[n.inputs[i]].push_back({k, static_cast<uint32_t>(i)});
      }
    }
  }
  subtree_end_.resize(index.graphs.size());
  for (size_t g = index.graphs.size(); g-- > 0;) {
    subtree_end_[g] = std::max(subtree_end_[g], static_cast<int32_t>(g + 1));
    const int32_t parent = index.graphs[g].parent_node;
    if (parent >= 0) {
      int32_t& end = subtree_end_[static_cast<size_t>(index.nodes[parent].graph)];
      end = std::max(end, subtree_end_[g]);
    }
  }
  // "name\ngraph" of the tensors and node outputs seen so far, and the names among them: a tensor's
  // key seen before is a name given twice in one graph; a name seen in another graph, shadowed.
  std::set<std::string, NameOrder> given, seen;
  auto give = [&](const std::string& name, int32_t g) {
    const std::string k = name + '\n' + std::to_string(g);
    if (!given.insert(k).second) return false;
    if (!seen.insert(name).second) shadowed_.insert(name);
    return true;
  };
  for (const TensorInfo& t : index.tensors) {
    if (!give(t.name, t.graph)) defined_twice_.insert(key(t));
  }
  for (const NodeInfo& n : index.nodes) {
    for (const std::string& name : n.outputs) give(name, n.graph);
  }
  for (size_t g = 0; g < index.graphs.size(); ++g) {
    const GraphInfo& f = index.graphs[g];
    if (f.function) functions_.emplace(f.function_domain + '\n' + f.function_name, static_cast<int32_t>(g));
  }
}

const std::vector<Consumer>* Scope::readers(const std::string& name) const {
  auto it = readers_.find(name);
  return it == readers_.end() ? nullptr : &it->second;
}

std::vector<Consumer> Scope::consumers(const TensorInfo& t) const {
  const std::vector<Consumer>* all = readers(t.name);
  if (!all || defined_twice(t)) return {};
  auto from = [&](int32_t g) {
    return std::partition_point(all->begin(), all->end(), [&](const Consumer& c) { return index_.nodes[c.node].graph < g; });
  };
  return std::vector<Consumer>(from(t.graph), from(subtree_end_[static_cast<size_t>(t.graph)]));
}

int32_t Scope::function(const std::string& domain, const std::string& name) const {
  auto it = functions_.find(domain + '\n' + name);
  return it == functions_.end() ? -1 : it->second;
}

int32_t Scope::root(int32_t g) const {
  while (index_.graphs[g].parent_node >= 0) g = index_.nodes[index_.graphs[g].parent_node].graph;
  return g;
}

int64_t Scope::opset(int32_t g) const {
  const GraphInfo& r = index_.graphs[root(g)];
  return r.function ? r.function_opset : index_.opset("");
}

}  // namespace onnx_shrink
