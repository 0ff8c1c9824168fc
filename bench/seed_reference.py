"""The original Python Shrink Ray's method, as a lower bound of what the Python tool costs: load the
model with the onnx package, quantize every float tensor of 16384+ values per tensor (min/max,
asymmetric int8, emitted as Cast -> Mul -> Add), save. Plain onnx + numpy (no onnx_graphsurgeon, no
shape inference, no checker: all of which the real tool also runs), so the real tool is slower.

    /usr/bin/python3 bench/seed_reference.py IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper


def quantize(name, values):
    min_val, max_val = np.min(values), np.max(values)
    range_val = max_val - min_val
    inverse_range = 1.0 / range_val
    zero_point = round(-min_val * inverse_range * 255.0) - 128
    codes = np.clip(np.round(values * inverse_range * 255.0) + zero_point, -128, 127).astype(np.int8)
    scale = np.float32(range_val / 255.0)
    tensors = [numpy_helper.from_array(codes, name + "_quantized"),
               numpy_helper.from_array(np.array(scale, np.float32), name + "_scale"),
               numpy_helper.from_array(np.array(-zero_point * scale, np.float32), name + "_offset")]
    nodes = [helper.make_node("Cast", [name + "_quantized"], [name + "_float"], to=onnx.TensorProto.FLOAT),
             helper.make_node("Mul", [name + "_float", name + "_scale"], [name + "_scaled"]),
             helper.make_node("Add", [name + "_scaled", name + "_offset"], [name])]
    return tensors, nodes


def main():
    model = onnx.load(sys.argv[1])
    g = model.graph
    keep, new_nodes = [], []
    for t in g.initializer:
        if t.data_type == onnx.TensorProto.FLOAT and np.prod(t.dims) >= 16384:
            tensors, nodes = quantize(t.name, numpy_helper.to_array(t))
            keep.extend(tensors)
            new_nodes.extend(nodes)
        else:
            keep.append(t)
    del g.initializer[:]
    g.initializer.extend(keep)
    nodes = new_nodes + list(g.node)
    del g.node[:]
    g.node.extend(nodes)
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
