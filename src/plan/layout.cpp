// Layout: the rewritten length prefix of every message that changes size, and the output's size.
#include <algorithm>
#include <climits>

#include "plan.h"

namespace onnx_shrink {

namespace {
// Edits in file order; two at the same place keep the order they were made in.
void sort_edits(std::vector<Edit>& edits) {
  std::vector<size_t> order(edits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Edit &x = edits[a], &y = edits[b];
    if (x.begin != y.begin) return x.begin < y.begin;
    if (x.end != y.end) return x.end < y.end;
    return a < b;
  });
  std::vector<Edit> sorted;
  sorted.reserve(edits.size());
  for (size_t i : order) sorted.push_back(std::move(edits[i]));
  edits.swap(sorted);
}
}  // namespace

uint64_t finish_layout(const ModelIndex& index, std::vector<Edit>& edits) {
  sort_edits(edits);
  // Size change of every container: its own edits plus its changed children. Children come after
  // their parents in the index, so one backward sweep settles them all.
  const size_t n = index.containers.size();
  std::vector<int64_t> delta(n, 0);
  std::vector<uint8_t> dirty(n);  // bytes, not vector<bool>: less code in WebAssembly
  int64_t top = 0;
  for (const Edit& e : edits) {
    const int64_t d = static_cast<int64_t>(e.size()) - static_cast<int64_t>(e.end - e.begin);
    if (e.container < 0) {
      top += d;
      continue;
    }
    delta[e.container] += d;
    for (int32_t c = e.container; c >= 0 && !dirty[c]; c = index.containers[c].parent) dirty[c] = true;
  }
  std::vector<Edit> prefixes;
  for (size_t k = n; k-- > 0;) {
    if (!dirty[k]) continue;
    const Container& c = index.containers[k];
    const uint64_t old_length = c.content_end - c.content_begin;
    const int64_t new_length = static_cast<int64_t>(old_length) + delta[k];
    if (new_length > INT32_MAX) {
      throw Error(ErrorCode::TooLarge, "a message of the result would be " + std::to_string(new_length) +
                                           " bytes, over the 2 GB protobuf limit: write external data");
    }
    Edit e;
    e.begin = c.length_begin;
    e.end = c.content_begin;
    e.container = c.parent;
    Chunk chunk;
    proto::append_varint(chunk.bytes, static_cast<uint64_t>(new_length));
    e.chunks.push_back(std::move(chunk));
    const int64_t d = static_cast<int64_t>(e.size()) - static_cast<int64_t>(e.end - e.begin) + delta[k];
    if (c.parent < 0) top += d;
    else delta[c.parent] += d;
    prefixes.push_back(std::move(e));
  }
  if (!prefixes.empty()) {
    edits.insert(edits.end(), std::make_move_iterator(prefixes.begin()), std::make_move_iterator(prefixes.end()));
    sort_edits(edits);
  }
  return static_cast<uint64_t>(static_cast<int64_t>(index.size) + top);
}

}  // namespace onnx_shrink
