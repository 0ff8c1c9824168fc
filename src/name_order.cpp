// NameOrder (see name_order.h).
#include "name_order.h"

#include <cstring>

namespace onnx_shrink {

bool NameOrder::operator()(const std::string& a, const std::string& b) const {
  return a.size() != b.size() ? a.size() < b.size() : std::memcmp(a.data(), b.data(), a.size()) < 0;
}

}  // namespace onnx_shrink
