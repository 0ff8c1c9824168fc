// Channel axes: which axis of a weight holds its output channels (each gets its own scales) and
// which its input channels (separable factors), read off the ops that consume it.
//
// A pure function of the index and the tensor. Each op's rule is one line in channel_axes.cpp's
// table of rules, with a test in tests/cpp/channel_axes_test.cpp on a small hand-built index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "index.h"
#include "plan/scope.h"

namespace onnx_shrink {

struct Axes {
  int64_t out = -1, in = -1;  // -1: none
};

// The axes of weight `t`, from the first of its `readers` that gives an output axis, looking through
// Cast, Identity and Transpose (up to 4 deep) and into model-local functions. Without such a reader,
// the PyTorch convention [out, in, ...] after any leading axes of 1.
Axes channel_axes(const ModelIndex& index, const Scope& scope, const TensorInfo& t, const std::vector<Consumer>& readers);

// The ops that have a rule, as "domain:op" (ai.onnx's with an empty domain): for the tests, which
// check that every rule has one.
std::vector<std::string> channel_axis_ops();

// A Transpose's perm when it has none: the axes reversed.
std::vector<int64_t> reversed_perm(int64_t rank);

}  // namespace onnx_shrink
