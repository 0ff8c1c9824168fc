"""Writes a generated fp32 model of about SIZE megabytes whose weights are shaped like a real
model family's, for speed benchmarks (bench/shapes.mjs):

    /usr/bin/python3 bench/make_shapes.py conv|transformer SIZE_MB OUT.onnx

conv         a convolutional stack: 3x3 kernels [Cout, Cin, 3, 3], 1x1 kernels [Cout, Cin, 1, 1],
             depthwise [C, 1, 3, 3] (group C) and grouped [C, C/4, 3, 3] (group 4) convolutions of
             64 to 512 channels, each with its bias, as a segmentation or detection backbone has.
transformer  encoder blocks of width 768: q, k, v and o [768, 768], MLP [768, 3072] and [3072, 768]
             MatMul weights with their biases and LayerNorm scales, and an embedding table
             [32000, 768] read by a Gather.

Each convolution or block reads a graph input of its own and writes a graph output (the model is
valid ONNX, not meant to be run as one network). Weights are deterministic (seeded) and their
output channels' ranges differ, as trained weights' do.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_model import save  # noqa: E402


def spread(rng, shape, std):
    w = rng.standard_normal(shape, dtype=np.float32) * np.float32(std)
    w *= np.exp(rng.standard_normal((shape[0],) + (1,) * (len(shape) - 1)).astype(np.float32) * np.float32(0.3))
    return w


def conv_net(rng, budget):
    nodes, inits, inputs, outputs = [], [], [], []
    channels = [64, 128, 256, 512]
    i = 0
    while budget > 0:
        c = channels[(i // 4) % len(channels)]
        kind = i % 4
        if kind == 0:  # 3x3, doubling or keeping the channels
            cin, cout, k, group = c, c, 3, 1
        elif kind == 1:  # 1x1 expansion
            cin, cout, k, group = c, 2 * c, 1, 1
        elif kind == 2:  # depthwise 3x3
            cin, cout, k, group = c, c, 3, c
        else:  # grouped 3x3
            cin, cout, k, group = c, c, 3, 4
        w = spread(rng, (cout, cin // group, k, k), np.sqrt(2.0 / (cin // group * k * k)))
        b = rng.standard_normal(cout).astype(np.float32) * np.float32(0.05)
        name = f"conv{i}"
        inits += [numpy_helper.from_array(w, f"{name}.weight"), numpy_helper.from_array(b, f"{name}.bias")]
        inputs.append(helper.make_tensor_value_info(f"{name}.in", TensorProto.FLOAT, [1, cin, 8, 8]))
        outputs.append(helper.make_tensor_value_info(f"{name}.out", TensorProto.FLOAT, [1, cout, 8, 8]))
        nodes.append(helper.make_node("Conv", [f"{name}.in", f"{name}.weight", f"{name}.bias"], [f"{name}.out"], name=name,
                                      kernel_shape=[k, k], pads=[k // 2] * 4, group=group))
        budget -= w.nbytes + b.nbytes
        i += 1
    return nodes, inits, inputs, outputs


def transformer(rng, budget):
    d, hidden, vocab = 768, 3072, 32000
    nodes, inits = [], []
    table = spread(rng, (vocab, d), 0.02)
    inits.append(numpy_helper.from_array(table, "embedding.weight"))
    inputs = [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 16])]
    outputs = [helper.make_tensor_value_info("embedded", TensorProto.FLOAT, [1, 16, d])]
    nodes.append(helper.make_node("Gather", ["embedding.weight", "ids"], ["embedded"], name="embedding"))
    budget -= table.nbytes
    i = 0
    while budget > 0:
        p = f"block{i}"
        x = f"{p}.in"
        inputs.append(helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, 16, d]))
        for name, shape in (("q", (d, d)), ("k", (d, d)), ("v", (d, d)), ("o", (d, d)), ("fc1", (d, hidden)), ("fc2", (hidden, d))):
            w = spread(rng, shape[::-1], 1.0 / np.sqrt(shape[0])).T.copy()  # [in, out], output channels differ
            b = rng.standard_normal(shape[1]).astype(np.float32) * np.float32(0.02)
            inits += [numpy_helper.from_array(w, f"{p}.{name}.weight"), numpy_helper.from_array(b, f"{p}.{name}.bias")]
            src = f"{p}.fc1.out" if name == "fc2" else x
            nodes.append(helper.make_node("MatMul", [src, f"{p}.{name}.weight"], [f"{p}.{name}.mm"], name=f"{p}.{name}"))
            nodes.append(helper.make_node("Add", [f"{p}.{name}.mm", f"{p}.{name}.bias"], [f"{p}.{name}.out"]))
            if name != "fc1":
                outputs.append(helper.make_tensor_value_info(f"{p}.{name}.out", TensorProto.FLOAT, [1, 16, d]))
            budget -= w.nbytes + b.nbytes
        gamma = (1 + rng.standard_normal(d) * 0.1).astype(np.float32)
        beta = (rng.standard_normal(d) * 0.02).astype(np.float32)
        inits += [numpy_helper.from_array(gamma, f"{p}.ln.weight"), numpy_helper.from_array(beta, f"{p}.ln.bias")]
        nodes.append(helper.make_node("LayerNormalization", [x, f"{p}.ln.weight", f"{p}.ln.bias"], [f"{p}.ln.out"], axis=-1))
        outputs.append(helper.make_tensor_value_info(f"{p}.ln.out", TensorProto.FLOAT, [1, 16, d]))
        i += 1
    return nodes, inits, inputs, outputs


def main():
    family, size_mb, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    build = {"conv": conv_net, "transformer": transformer}[family]
    nodes, inits, inputs, outputs = build(np.random.default_rng(4321), size_mb * 1e6)
    save(helper.make_graph(nodes, f"generated {family}", inputs, outputs, inits), path)


if __name__ == "__main__":
    main()
