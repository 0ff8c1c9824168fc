"""Random, mostly invalid graphs for the engine to survive: names given twice, chains that loop,
functions that call themselves, subgraphs, odd Einsum equations and perms, tensors of few values
per channel. Built with the reference `onnx` helpers (no checker: most are not valid ONNX), from a
fixed seed. Used by test_models.RandomGraphs and as fuzzing seeds (tests/fuzz/make_seeds.py).
"""
import random

import numpy as np
from onnx import TensorProto, helper, numpy_helper

NAMES = ["w", "x", "a", "b", "c", "s", "codes", "w::codes", "w::codes_1", "y"]
OPS = ["MatMul", "Gemm", "Cast", "Identity", "Transpose", "Mul", "Add", "Einsum", "Gather", "Conv", "Reshape",
       "Dense", "Attention", "FusedMatMul", "DequantizeLinear", "If", "LSTM"]
EQUATIONS = ["bc,cd->bd", "ij,jk", "...c,cd->...d", "ii,ij->j", "a,b->ab", "bc , cd -> bd", "", "->", ",,->", "abc,cde->abde"]
SHAPES = [(4, 64), (64, 64), (1, 64), (64, 4), (2, 3, 16), (1, 1, 32), (16,), (1,)]


def random_model(seed):
    """The bytes of one model."""
    r = random.Random(seed)

    def tensor(name):
        shape = r.choice(SHAPES)
        kind = r.choice(["f32", "f32", "f16", "i8"])
        values = np.random.default_rng(r.randrange(1 << 30)).normal(size=shape) * r.choice([1e-3, 1.0, 1e4])
        dtype = {"f32": np.float32, "f16": np.float16, "i8": np.int8}[kind]
        return numpy_helper.from_array(values.astype(dtype), name)

    def node(depth):
        if r.random() < 0.15:
            return helper.make_node("Constant", [], [r.choice(NAMES)], value=tensor("v"))
        op, domain, kw = r.choice(OPS), "", {}
        inputs = [r.choice(NAMES) for _ in range(r.randint(1, 3))]
        if op == "Einsum":
            kw["equation"] = r.choice(EQUATIONS)
        if op == "Cast":
            kw["to"] = r.choice([1, 3, 6, 10])
        if op in ("Attention", "FusedMatMul"):
            domain, kw["transB"] = "com.microsoft", r.randint(0, 1)
        if op == "Dense":
            domain = "local"
        if op in ("Transpose", "Gemm") and r.random() < 0.5:
            kw["perm" if op == "Transpose" else "transB"] = [r.randint(-2, 3) for _ in range(r.randint(0, 3))] if op == "Transpose" else 1
        if op == "If":
            if depth >= 3:
                op = "Identity"
            else:
                kw["then_branch"], kw["else_branch"] = graph(depth + 1), graph(depth + 1)
        return helper.make_node(op, inputs, [r.choice(NAMES)], domain=domain, **kw)

    def graph(depth):
        nodes = [node(depth) for _ in range(r.randint(1, 8))]
        initializers = [tensor(r.choice(NAMES)) for _ in range(r.randint(0, 4))]
        return helper.make_graph(nodes, f"g{depth}", [], [helper.make_tensor_value_info(r.choice(NAMES), TensorProto.FLOAT, None)], initializers)

    main = graph(0)
    opsets = [helper.make_opsetid("", r.choice([9, 11, 13, 17, 21])), helper.make_opsetid("local", 1), helper.make_opsetid("com.microsoft", 1)]
    m = helper.make_model(main, opset_imports=opsets)
    m.ir_version = 8
    for _ in range(r.randint(0, 2)):
        body = [node(1) for _ in range(r.randint(1, 5))]
        m.functions.append(helper.make_function("local", "Dense", ["x", "v"], ["y"], body, [helper.make_opsetid("", r.choice([0, 6, 12, 13]))]))
    return m.SerializeToString()
