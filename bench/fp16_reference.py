"""What an fp16 converter's weights cost and keep, for comparison: every float tensor of 16384+
values (initializers and Constant nodes, in every graph and subgraph) stored as fp16 and cast back
to float32 where it is used, so that computation stays float32 as in the other rows (converters
that also run the graph in fp16 change more than the weights).

    /usr/bin/python3 bench/fp16_reference.py IN.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MIN_ELEMENTS = 16384


def big_float(t):
    return t.data_type == TensorProto.FLOAT and int(np.prod(t.dims)) >= MIN_ELEMENTS


def as_half(t, name):
    return numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), name)


def convert(graph):
    nodes = []
    keep = []
    for t in graph.initializer:
        if big_float(t):
            keep.append(as_half(t, t.name + "_fp16"))
            nodes.append(helper.make_node("Cast", [t.name + "_fp16"], [t.name], to=TensorProto.FLOAT))
        else:
            keep.append(t)
    del graph.initializer[:]
    graph.initializer.extend(keep)
    for n in graph.node:
        for a in n.attribute:
            for g in list(a.graphs) + ([a.g] if a.HasField("g") else []):
                convert(g)
        value = next((a for a in n.attribute if a.name == "value" and a.HasField("t")), None)
        if n.op_type == "Constant" and value is not None and big_float(value.t):
            out = n.output[0]
            value.t.CopyFrom(as_half(value.t, value.t.name))
            n.output[0] = out + "_fp16"
            nodes.append(n)
            nodes.append(helper.make_node("Cast", [out + "_fp16"], [out], to=TensorProto.FLOAT))
        else:
            nodes.append(n)
    del graph.node[:]
    graph.node.extend(nodes)


def main():
    model = onnx.load(sys.argv[1])
    convert(model.graph)
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
