// Rounding draws (Options::rounding_draw): the same weights rounded again on other, equally good
// grids, for measuring how much a model's output error is the luck of one rounding (bench/).
//
// Draw N > 0 (a measurement, not a quality setting): each group's grid is shifted by a
// pseudo-random fraction of a step and every value is rounded again, so each weight's rounding is
// drawn afresh at the same expected error. (Widening each range by a random 0.3 % instead moved
// the grid near zero by a tiny fraction of a step: only 3-6 % of silero's codes changed.) Groups
// holding an exact zero keep their grid, so zeros stay zeros. The shifted grid's zero lies between
// two codes, which only the fold form's float offsets can express (shrink() checks).
// A shift is equally good only where values spread over many steps. Where most sit within a step
// or two of zero (the original tool's one grid for a tensor with outliers), a shift moves every
// small value off its code 0 and costs up to 2 dB; such a tensor keeps its standard grid, and so
// does any whose error the shift changes by more than kDrawTolerance.
#pragma once

#include <cstdint>
#include <vector>

#include "int8_layout.h"
#include "kernels/kernels.h"

namespace onnx_shrink {

// Draws are a measuring tool of the native build (bench/ runs the native CLI): the WebAssembly
// module, which users download, leaves them out (0.6 KB gzipped), and shrink() refuses a draw there.
#if defined(__EMSCRIPTEN__)
constexpr bool kRoundingDraws = false;
#else
constexpr bool kRoundingDraws = true;
#endif

// The shift of group g's grid for draw `l.draw`, in steps, in [-1/2, 1/2) (0 for draw 0): from a
// hash of the draw, the tensor and g.
float draw_shift(const Int8Layout& l, uint64_t g);

// Codes `out` (and their low bits `low`, when the params have any) of the n values `x` (the
// layout's own domain) rounded again on the shifted grids of draw `l.draw`; `params` get the
// shifted offsets and `e` the new error sums (terms weighted by `row_weights` per row when given,
// as the kernels weight them). Left as they were where the draw keeps the standard grid.
void redraw(const Int8Layout& l, const uint8_t* x, uint64_t n, int8_t* out, std::vector<kernels::Int8Params>& params,
            kernels::ErrorSums& e, const float* row_weights, uint8_t* low = nullptr);

}  // namespace onnx_shrink
