// Bit allocation: the bytes the float16 small tensors save, spent on low bits of the 8-bit codes.
#pragma once

#include <vector>

#include "plan.h"

namespace onnx_shrink {

// Options::bits 0 (auto): gives the items that allow them (Item::low_bits_allowed) a 9th and a 10th
// bit, lowest estimated SQNR first, as far as the bytes the Half items save pay for them.
void allocate_low_bits(const ModelIndex& index, std::vector<Item>& items);

}  // namespace onnx_shrink
