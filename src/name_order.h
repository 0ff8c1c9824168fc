// NameOrder: the order of tables that are looked up by name and never walked in order.
#pragma once

#include <string>

namespace onnx_shrink {

// Shorter names first, names of one length by their bytes. Cheaper than alphabetical order: names
// of different lengths are told apart without reading them, and the comparison is one call, not a
// chain of them (the tables' comparisons were a fifth of a small model's expand() in WebAssembly).
// (Defined in name_order.cpp, which the WebAssembly build optimizes for speed: in the files built
// for size, the string's own accessors would be calls too.)
struct NameOrder {
  bool operator()(const std::string& a, const std::string& b) const;
};

}  // namespace onnx_shrink
