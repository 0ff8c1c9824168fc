// Template part of wire.h.
#pragma once

namespace onnx_shrink::proto {

// One decoder for every caller (wire.cpp), each visit through a pointer: one copy of the loop in
// the WebAssembly module instead of one per caller.
template <typename Visit>
uint64_t for_each_packed_varint(Window& window, Trail& trail, uint64_t begin, uint64_t end, Visit visit) {
  return for_each_packed_varint(window, trail, begin, end, VarintVisit{&visit, [](void* context, uint64_t value) {
                                  (*static_cast<Visit*>(context))(value);
                                }});
}

}  // namespace onnx_shrink::proto
