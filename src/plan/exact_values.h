// Exact values: weights whose values a reader needs exactly, so that no scheme may round them.
//
// Rounded, a shape input (Resize's scales, Range's bounds) changes an output's shape and the model
// no longer loads; values cast to integers (positions, indices, counts) move by one where a code
// lands a hair under an integer; an exponent of a negative base gives NaN when it stops being an
// integer; a divisor near zero gives a huge or infinite quotient (or remainder); a value near zero under Log
// or Sqrt can round to zero or below and give -inf or NaN. Found through Identity and
// float-to-float Casts (up to 4 deep) and into model-local functions, as channel_axes does.
#pragma once

#include <vector>

#include "index.h"
#include "plan/scope.h"

namespace onnx_shrink {

// Why the values read by `readers` must stay exact ("it sets an output's shape: kept exact"), or
// nullptr when they may be rounded.
const char* exact_reason(const ModelIndex& index, const Scope& scope, const std::vector<Consumer>& readers);

}  // namespace onnx_shrink
