// NameOrder: the order of tables that are looked up by name and never walked in order.
#pragma once

#include <cstring>
#include <string>

namespace onnx_shrink {

// Shorter names first, names of one length by their bytes. Cheaper than alphabetical order: names
// of different lengths are told apart without reading them, and the comparison is one call, not a
// chain of them (the tables' comparisons were a fifth of a small model's expand() in WebAssembly).
struct NameOrder {
  bool operator()(const std::string& a, const std::string& b) const {
    return a.size() != b.size() ? a.size() < b.size() : std::memcmp(a.data(), b.data(), a.size()) < 0;
  }
};

}  // namespace onnx_shrink
