"""Writes a generated fp32 model of about SIZE megabytes for speed and memory benchmarks: MatMul
layers with 1024x1024 weights (4 MiB each), the shape of a transformer's linear layers.

    /usr/bin/python3 bench/make_model.py SIZE_MB OUT.onnx [--external] [--sum]

The weights are deterministic (seeded). --external stores them in OUT.onnx.data, written tensor by
tensor (so models far larger than memory can be made) at 4096-byte aligned offsets. Layers are
chained (y = x W1 W2 ...) unless --sum is given (y = x W1 + x W2 + ...), which keeps the output's
scale the same however many layers there are, for accuracy checks on the largest models.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DIM = 1024
ALIGN = 4096


def weights(rng):
    w = rng.standard_normal((DIM, DIM), dtype=np.float32) * np.float32(0.02)
    w *= np.exp(rng.standard_normal((1, DIM)).astype(np.float32) * np.float32(0.3))  # output channels differ
    return w


def external_tensor(name, w, data, location):
    """Appends w to the open data file and returns a TensorProto that points at it."""
    offset = (data.tell() + ALIGN - 1) // ALIGN * ALIGN
    data.seek(offset)
    raw = w.tobytes()
    data.write(raw)
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(w.shape))
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(len(raw)))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def main():
    size_mb, path = float(sys.argv[1]), sys.argv[2]
    external, summed = "--external" in sys.argv, "--sum" in sys.argv
    layers = max(1, int(round(size_mb * 1e6 / (DIM * DIM * 4))))
    rng = np.random.default_rng(1234)
    location = os.path.basename(path) + ".data"
    data = open(path + ".data", "wb") if external else None
    nodes, inits = [], []
    x = "x"
    for i in range(layers):
        w, name = weights(rng), f"layer{i}.weight"
        inits.append(external_tensor(name, w, data, location) if external else numpy_helper.from_array(w, name))
        y = f"h{i}"
        nodes.append(helper.make_node("MatMul", ["x" if summed else x, name], [y], name=f"layer{i}"))
        if summed and i > 0:
            nodes.append(helper.make_node("Add", [x, y], [f"s{i}"], name=f"sum{i}"))
            y = f"s{i}"
        x = y
    if data:
        data.close()
    nodes.append(helper.make_node("Identity", [x], ["y"]))
    g = helper.make_graph(nodes, "generated", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, DIM])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, DIM])], inits)
    save(g, path)


def save(graph, path):
    """Writes `graph` as an opset 17, IR 8 model (the bench models' header)."""
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="onnx-shrink bench")
    m.ir_version = 8
    with open(path, "wb") as f:
        f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
