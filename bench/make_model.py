"""Writes a generated fp32 model of about SIZE megabytes for speed and memory benchmarks: a stack of
MatMul layers with 1024x1024 weights (4 MiB each), the shape of a transformer's linear layers.

    /usr/bin/python3 bench/make_model.py SIZE_MB OUT.onnx [--external]

The weights are deterministic (seeded); --external stores them in OUT.onnx.data.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    size_mb, path = float(sys.argv[1]), sys.argv[2]
    external = "--external" in sys.argv
    dim = 1024
    layers = max(1, int(round(size_mb * 1e6 / (dim * dim * 4))))
    rng = np.random.default_rng(1234)
    nodes, inits = [], []
    x = "x"
    for i in range(layers):
        w = (rng.standard_normal((dim, dim), dtype=np.float32) * np.float32(0.02))
        w *= np.exp(rng.standard_normal((1, dim)).astype(np.float32) * np.float32(0.3))  # output channels differ
        inits.append(numpy_helper.from_array(w, f"layer{i}.weight"))
        y = f"h{i}"
        nodes.append(helper.make_node("MatMul", [x, f"layer{i}.weight"], [y], name=f"layer{i}"))
        x = y
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    g = helper.make_graph(nodes, "generated", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, dim])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, dim])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shrink bench")
    m.ir_version = 8
    if external:
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(path) + ".data", size_threshold=1024)
    else:
        onnx.save_model(m, path)


if __name__ == "__main__":
    main()
