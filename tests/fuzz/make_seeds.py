"""Writes small valid models for the fuzzer to start from (the structures it should mutate)."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)


def save(name, nodes, inits, inputs, outputs, opset=13, ir=8):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = ir
    onnx.save(m, os.path.join(out, name + ".onnx"))


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])
w = rng.normal(size=(8, 8)).astype(np.float32)
save("matmul", [helper.make_node("MatMul", ["x", "w"], ["y"])], [numpy_helper.from_array(w, "w")], [x], [y])
save("constant", [helper.make_node("Constant", [], ["w"], value=numpy_helper.from_array(w, "c")), helper.make_node("MatMul", ["x", "w"], ["y"])], [], [x], [y], opset=9, ir=4)
save("fp16", [helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT), helper.make_node("MatMul", ["x", "wf"], ["y"])],
     [helper.make_tensor("w", TensorProto.FLOAT16, [8, 8], w.astype(np.float16).view(np.uint16).reshape(-1).tolist())], [x], [y])
branch = lambda n: helper.make_graph([helper.make_node("Constant", [], [n], value=numpy_helper.from_array(w, n + "c")), helper.make_node("MatMul", ["x", n], [n + "y"])], n, [], [helper.make_tensor_value_info(n + "y", TensorProto.FLOAT, [1, 8])])
save("if", [helper.make_node("If", ["c"], ["y"], then_branch=branch("t"), else_branch=branch("e"))], [], [x, helper.make_tensor_value_info("c", TensorProto.BOOL, [])], [y])
save("ir3", [helper.make_node("MatMul", ["x", "w"], ["y"])], [numpy_helper.from_array(w, "w")], [x, helper.make_tensor_value_info("w", TensorProto.FLOAT, [8, 8])], [y], opset=8, ir=3)
# Values at the edge of fp16's range (the codes that would round past 65504 move inward).
edge = (rng.normal(size=(8, 8)) * 1000).astype(np.float16)
edge[0, 0], edge[1, 2], edge[3, 3] = 65504, -65504, 60000
save("fp16_edge", [helper.make_node("Cast", ["w"], ["wf"], to=TensorProto.FLOAT), helper.make_node("MatMul", ["x", "wf"], ["y"])],
     [helper.make_tensor("w", TensorProto.FLOAT16, [8, 8], edge.view(np.uint16).reshape(-1).tolist())], [x], [y])
# A model-local function whose body holds a Constant weight (walked as a graph, field numbers differ).
fn = helper.make_function("local", "Dense", ["x"], ["y"], [helper.make_node("Constant", [], ["w"], value=numpy_helper.from_array(w, "w")),
                                                          helper.make_node("MatMul", ["x", "w"], ["y"])], [helper.make_opsetid("", 13)])
m = helper.make_model(helper.make_graph([helper.make_node("Dense", ["x"], ["y"], domain="local")], "calls", [x], [y]),
                      opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
m.ir_version = 8
m.functions.append(fn)
onnx.save(m, os.path.join(out, "function.onnx"))
# Weights read by Einsum (its equation is parsed for the channel axes) and by onnxruntime's fused ops.
save("einsum", [helper.make_node("Einsum", ["x", "w"], ["y"], equation="bc,cd->bd")], [numpy_helper.from_array(w, "w")], [x], [y], opset=12)
m = helper.make_model(helper.make_graph([helper.make_node("FusedMatMul", ["x", "w"], ["y"], domain="com.microsoft", transB=1, transBatchB=0),
                                         helper.make_node("Attention", ["x3", "w", "b"], ["a"], domain="com.microsoft", num_heads=2)],
                                        "fused", [x], [y], [numpy_helper.from_array(w, "w")]),
                      opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
m.ir_version = 8
onnx.save(m, os.path.join(out, "fused.onnx"))
# The low bits of 10-bit codes, as the engine writes them (and expand() reads them back): packed
# digits -> Cast -> Div -> Floor -> Mod(fmod) -> Div -> Reshape, added to the codes; and a float16
# small tensor behind its Cast.
codes = rng.integers(-128, 128, size=(8, 8)).astype(np.int8)
packed = rng.integers(0, 256, size=(16, 1)).astype(np.uint8)
f32 = lambda name, a: numpy_helper.from_array(np.asarray(a, np.float32), name)
save("low_bits", [helper.make_node("Cast", ["p"], ["p0"], to=TensorProto.FLOAT), helper.make_node("Div", ["p0", "d"], ["p1"]),
                  helper.make_node("Floor", ["p1"], ["p2"]), helper.make_node("Mod", ["p2", "m"], ["p3"], fmod=1),
                  helper.make_node("Div", ["p3", "m"], ["p4"]), helper.make_node("Reshape", ["p4", "s"], ["p5"]),
                  helper.make_node("Cast", ["q"], ["q0"], to=TensorProto.FLOAT), helper.make_node("Add", ["q0", "p5"], ["q1"]),
                  helper.make_node("Mul", ["q1", "scale"], ["q2"]), helper.make_node("Add", ["q2", "offset"], ["w"]),
                  helper.make_node("Cast", ["b16"], ["b"], to=TensorProto.FLOAT), helper.make_node("MatMul", ["x", "w"], ["xw"]),
                  helper.make_node("Add", ["xw", "b"], ["y"])],
     [numpy_helper.from_array(packed, "p"), f32("d", [[1, 4, 16, 64]]), f32("m", 4), numpy_helper.from_array(np.array([8, 8], np.int64), "s"),
      numpy_helper.from_array(codes, "q"), f32("scale", [[0.01] * 8]), f32("offset", [[0.001] * 8]),
      helper.make_tensor("b16", TensorProto.FLOAT16, [8], np.ones(8, np.float16).view(np.uint16).tolist())], [x], [y])
# The same low bits as the engine now writes them: a Gather from a digit table, which the 256 byte
# values make by Cast -> Div -> Floor -> Mod(fmod) -> Div; two weights share the table.
gathered = [helper.make_node("Cast", ["bytes"], ["t0"], to=TensorProto.FLOAT), helper.make_node("Div", ["t0", "d"], ["t1"]),
            helper.make_node("Floor", ["t1"], ["t2"]), helper.make_node("Mod", ["t2", "m"], ["t3"], fmod=1),
            helper.make_node("Div", ["t3", "m"], ["table"])]
for k in range(2):
    gathered += [helper.make_node("Cast", [f"p{k}"], [f"i{k}"], to=TensorProto.INT32), helper.make_node("Gather", ["table", f"i{k}"], [f"g{k}"]),
                 helper.make_node("Reshape", [f"g{k}", "s"], [f"l{k}"]), helper.make_node("Cast", [f"q{k}"], [f"c{k}"], to=TensorProto.FLOAT),
                 helper.make_node("Add", [f"c{k}", f"l{k}"], [f"a{k}"]), helper.make_node("Mul", [f"a{k}", "scale"], [f"w{k}"])]
gathered += [helper.make_node("MatMul", ["x", "w0"], ["h"]), helper.make_node("MatMul", ["h", "w1"], ["y"])]
save("low_bits_gathered", gathered,
     [numpy_helper.from_array(np.arange(256, dtype=np.uint8).reshape(256, 1), "bytes"), f32("d", [[1, 4, 16, 64]]), f32("m", 4),
      numpy_helper.from_array(np.array([8, 8], np.int64), "s"), f32("scale", [[0.01] * 8]),
      numpy_helper.from_array(packed, "p0"), numpy_helper.from_array(packed[::-1].copy(), "p1"),
      numpy_helper.from_array(codes, "q0"), numpy_helper.from_array(codes[::-1].copy(), "q1")], [x], [y])
# Random, mostly invalid graphs (names given twice, loops, functions calling themselves, few values
# per channel): structures byte mutations rarely reach.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import random_graphs  # noqa: E402

for seed in range(24):
    with open(os.path.join(out, f"random_{seed}.onnx"), "wb") as f:
        f.write(random_graphs.random_model(seed))
