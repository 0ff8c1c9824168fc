// Questions asked of the index: opsets, external data, a tensor's stored bytes, node attributes.
#include <set>

#include "index.h"
#include "name_order.h"
#include "proto/onnx_fields.h"

namespace onnx_shrink {

int64_t ModelIndex::opset(const std::string& domain) const {
  for (const OpsetImport& o : opsets) {
    if (o.domain == domain) return o.version;
  }
  return 0;
}

bool ModelIndex::has_external_data() const {
  for (const TensorInfo& t : tensors) {
    if (t.kind == DataKind::External) return true;
  }
  return false;
}

uint64_t ModelIndex::external_bytes() const {
  uint64_t total = 0;
  std::set<std::string, NameOrder> seen;  // tensors that share bytes count once
  for (const TensorInfo& t : tensors) {
    if (t.kind == DataKind::External && seen.insert(t.location + "@" + std::to_string(t.data.begin)).second) {
      total += (t.elements * uint64_t(onnx::element_bits(t.data_type)) + 7) / 8;
    }
  }
  return total;
}

uint64_t stored_bytes(const TensorInfo& tensor) { return tensor.data.size(); }

const Attribute* NodeInfo::attribute(const char* name) const {
  for (size_t k = attributes.size(); k-- > 0;) {
    if (attributes[k].name == name) return &attributes[k];
  }
  return nullptr;
}

int64_t NodeInfo::int_attribute(const char* name, int64_t fallback) const {
  for (size_t k = attributes.size(); k-- > 0;) {
    if (attributes[k].has_int && attributes[k].name == name) return attributes[k].i;
  }
  return fallback;
}

}  // namespace onnx_shrink
