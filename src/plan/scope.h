// Scope: who reads each name, and which graphs see it. Shared by the planner and expand.
//
// The walk numbers graphs depth first, so a graph's subgraphs (nested at any depth) are the ids from
// it to subtree_end(g), and a tensor's readers are one range of its name's readers, which are kept
// sorted by graph. (Scanning every reader per tensor took the product of the two in time, for files
// that define one name many times.)
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "index.h"
#include "name_order.h"

namespace onnx_shrink {

// A node input: node `node` reads the name at input position `input`.
struct Consumer {
  int32_t node;
  uint32_t input;
};

class Scope {
 public:
  explicit Scope(const ModelIndex& index);

  // Every reader of `name` in the model, sorted by graph (nullptr: none).
  const std::vector<Consumer>* readers(const std::string& name) const;
  // The nodes that read tensor `t`: those of its graph and the graphs nested in it. None when its
  // name is given to another tensor of the same graph (which one a node reads is unknown).
  std::vector<Consumer> consumers(const TensorInfo& t) const;
  // A name given to two tensors of one graph (no valid model does that).
  bool defined_twice(const TensorInfo& t) const { return defined_twice_.count(key(t)) != 0; }
  // A name also given (to a tensor or a node's output) in another graph: where that graph encloses
  // t's or is nested in it, the new nodes' outputs would share a name, which onnxruntime refuses.
  // (Graphs side by side, such as an If's two branches, are counted too.)
  bool shadowed(const TensorInfo& t) const { return shadowed_.count(t.name) != 0; }
  // True when graph `g` is `scope` or nested inside it (names of `scope` are visible in `g`).
  bool inside(int32_t g, int32_t scope) const { return g >= scope && g < subtree_end_[static_cast<size_t>(scope)]; }
  // The graph of the model-local function `domain`.`name`, or -1.
  int32_t function(const std::string& domain, const std::string& name) const;
  // The graph that is not nested in any other: the main graph, or a function's body.
  int32_t root(int32_t g) const;
  // The ai.onnx opset in force in graph `g` (a function's own import, else the model's).
  int64_t opset(int32_t g) const;

 private:
  static std::string key(const TensorInfo& t) { return t.name + '\n' + std::to_string(t.graph); }

  const ModelIndex& index_;
  std::map<std::string, std::vector<Consumer>, NameOrder> readers_;
  std::map<std::string, int32_t, NameOrder> functions_;  // "domain\nname" -> its graph (the first wins)
  std::vector<int32_t> subtree_end_;          // graph -> one past its last nested subgraph
  std::set<std::string, NameOrder> defined_twice_;  // "name\ngraph" of tensors whose name is given twice
  std::set<std::string, NameOrder> shadowed_;       // names given in more than one graph
};

}  // namespace onnx_shrink
