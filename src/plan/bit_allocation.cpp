// Bit allocation (see bit_allocation.h).
#include "plan/bit_allocation.h"

#include <queue>
#include <set>

#include "code_format.h"

namespace onnx_shrink {

// Each next bit goes to the tensor whose estimated SQNR is lowest at that point (water-filling:
// relative to its tensor, the error a bit halves is largest there), up to a 10th, as long as it
// fits. What a half saves is counted low and what a bit costs high (with room for length prefixes
// that grow), so the result is never larger than with 8 bits and the small tensors left alone,
// without laying that out.
void allocate_low_bits(const ModelIndex& index, std::vector<Item>& items) {
  using Level = std::pair<double, int32_t>;  // estimated SQNR with the bits so far, item
  std::priority_queue<Level, std::vector<Level>, std::greater<Level>> next;
  auto digits = [](size_t i) { return static_cast<int64_t>(std::to_string(i).size()); };
  // Length prefixes of the messages around the changes may grow by a byte or two each.
  std::set<int32_t> around;
  int64_t budget = -16;
  for (size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    const TensorInfo& t = index.tensors[item.tensor];
    for (int32_t c = index.graphs[t.graph].container; c >= 0 && around.insert(c).second; c = index.containers[c].parent) {
      budget -= 4;
    }
    // Half the data, less a Cast node and the name it reads, "hf<item>", twice: under 40 bytes and
    // the name (the tensor gives up its long name for it).
    if (item.action == Action::Half) budget += static_cast<int64_t>(2 * t.elements) - 2 * digits(i) - 40;
    if (item.low_bits_allowed) next.push({item.sqnr_estimate, static_cast<int32_t>(i)});
  }
  const uint32_t most = format_with_bits(10)->low_bits;
  std::set<std::pair<int32_t, int32_t>> shared;  // graph and form, bits: digits, base and digit table paid for
  std::set<int32_t> byte_values;                  // graph and form: the digit tables' 256 byte values paid for
  while (!next.empty() && budget > 0) {
    const Level top = next.top();
    next.pop();
    Item& item = items[top.second];
    const TensorInfo& t = index.tensors[item.tensor];
    const uint32_t bits = static_cast<uint32_t>(item.layout.low_bits) + 1;
    const std::pair<int32_t, int32_t> key{t.graph * 2 + (t.node >= 0), static_cast<int32_t>(bits)};
    // The packed bits; with the first, the nodes and constants that add them (the emitter's
    // low-bits chain: at most 350 bytes, the names "lb<item>.*", the shape and the Add's reading of
    // the weight's chain); the first time in a graph and form for these bits, the digits, the base
    // and the digit table's nodes (240), and the first time for any bits, the table's 256 byte
    // values (260). Measured: 219 and 260 bytes. What does not fit now never will.
    const uint64_t more = format_with_bits(8 + bits)->low_bytes(t.elements) - format_with_bits(7 + bits)->low_bytes(t.elements);
    int64_t cost = static_cast<int64_t>(more) + (shared.count(key) ? 0 : 240) + (byte_values.count(key.first) ? 0 : 260);
    if (bits == 1) cost += 350 + 14 * digits(top.second) + static_cast<int64_t>(t.name.size() + 8 * item.layout.code_dims.size());
    if (cost > budget) continue;
    budget -= cost;
    shared.insert(key);
    byte_values.insert(key.first);
    item.layout.low_bits = static_cast<int32_t>(bits);
    if (bits < most) next.push({top.first + 6.02, top.second});
  }
}

}  // namespace onnx_shrink
