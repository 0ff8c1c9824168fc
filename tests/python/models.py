"""Synthetic models for the tests, built with the reference `onnx` package (Debian python3-onnx).

Each builder returns (model, feeds): feeds maps input names to numpy arrays. Weights are
deterministic (fixed seeds) and shaped like real ones: per-channel ranges that differ, a few
outliers, some exact zeros.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weights(shape, seed, spread=True, dtype=np.float32):
    rng = np.random.default_rng(seed)
    w = rng.normal(0.0, 0.05, size=shape)
    if spread and len(shape) >= 2:  # output channels with different ranges
        scale = np.exp(rng.normal(0.0, 0.7, size=(shape[0],) + (1,) * (len(shape) - 1)))
        w = w * scale
    flat = w.reshape(-1)
    flat[rng.integers(0, flat.size, size=max(1, flat.size // 1000))] *= 8  # outliers
    flat[rng.integers(0, flat.size, size=max(1, flat.size // 100))] = 0  # pruned weights
    return w.astype(dtype)


def model(graph, opset=13, ir=8, extra_opsets=()):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), *extra_opsets], producer_name="onnx-shrink tests")
    m.ir_version = ir
    return m


def feed(shape, seed, dtype=np.float32):
    return np.random.default_rng(seed).normal(0, 1, size=shape).astype(dtype)


def conv_net(opset=11):
    """Conv -> Relu -> Conv -> Relu -> Flatten -> Gemm, weights as initializers."""
    w1, w2 = weights((64, 32, 3, 3), 1), weights((64, 64, 3, 3), 2)
    fc = weights((32, 64 * 4 * 4), 3)  # Gemm transB=1: [out, in]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("Flatten", ["r2"], ["f"], axis=1),
        helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1, name="fc"),
    ]
    g = helper.make_graph(nodes, "conv_net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(fc, "fc")])
    return model(g, opset, ir=6 if opset <= 11 else 8), {"x": feed((1, 32, 8, 8), 10)}


def mlp(opset=13):
    """MatMul with a [256, 192] weight, Gemm with transB=0 and a bias, Relu between."""
    w1, w2, b2 = weights((256, 192), 4), weights((192, 128), 5), weights((128,), 6, spread=False)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h"], name="mm"),
        helper.make_node("Relu", ["h"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], transB=0, name="gemm"),
    ]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 128])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")])
    return model(g, opset), {"x": feed((4, 256), 11)}


def if_branches(opset=13):
    """An If whose two branches each hold their weight in a Constant node, plus an outer-scope input."""
    def branch(name, seed):
        w = weights((128, 160), seed)
        nodes = [helper.make_node("Constant", [], [name + "_w"], value=numpy_helper.from_array(w, name + "_value"), name=name + "_const"),
                 helper.make_node("MatMul", ["x", name + "_w"], [name + "_y"])]
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, [2, 160])])
    nodes = [helper.make_node("If", ["cond"], ["y"], then_branch=branch("then", 7), else_branch=branch("else", 8), name="if")]
    g = helper.make_graph(nodes, "if_model", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 128]),
                                              helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 160])])
    return model(g, opset), {"x": feed((2, 128), 12), "cond": np.array(True)}


def constant_nodes(opset=9):
    """Weights in Constant nodes of the main graph, at opset 9 (IR 4)."""
    w1, w2 = weights((128, 192), 9), weights((192, 256), 10)
    nodes = [helper.make_node("Constant", [], ["w1"], value=numpy_helper.from_array(w1, "c1")),
             helper.make_node("Constant", [], ["w2"], value=numpy_helper.from_array(w2, "c2")),
             helper.make_node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Tanh", ["h"], ["t"]),
             helper.make_node("MatMul", ["t", "w2"], ["y"])]
    g = helper.make_graph(nodes, "constants", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 128])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 256])])
    return model(g, opset, ir=4), {"x": feed((3, 128), 13)}


def fp16_weights(opset=13, typed=False):
    """fp16 weights behind a Cast to float (as fp16 exports often are). `typed`: stored in int32_data."""
    w = weights((192, 128), 11).astype(np.float16)
    t = helper.make_tensor("w16", TensorProto.FLOAT16, w.shape, w.view(np.uint16).reshape(-1).tolist()) if typed \
        else numpy_helper.from_array(w, "w16")
    nodes = [helper.make_node("Cast", ["w16"], ["w"], to=TensorProto.FLOAT), helper.make_node("MatMul", ["x", "w"], ["y"])]
    g = helper.make_graph(nodes, "fp16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 192])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 128])], [t])
    return model(g, opset), {"x": feed((2, 192), 14)}


def bf16_and_double(opset=13):
    """A bf16 weight behind a Cast, and a float64 weight used by a float64 MatMul."""
    w = weights((128, 160), 12)
    bits = (w.view(np.uint32) >> 16).astype(np.uint16)  # truncation is fine for a test weight
    tb = helper.make_tensor("wb", TensorProto.BFLOAT16, w.shape, bits.tobytes(), raw=True)
    wd = weights((160, 128), 13).astype(np.float64)
    nodes = [helper.make_node("Cast", ["wb"], ["w"], to=TensorProto.FLOAT), helper.make_node("MatMul", ["x", "w"], ["h"]),
             helper.make_node("Cast", ["h"], ["hd"], to=TensorProto.DOUBLE), helper.make_node("MatMul", ["hd", "wd"], ["y"])]
    g = helper.make_graph(nodes, "bf16_double", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 128])],
                          [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2, 128])], [tb, numpy_helper.from_array(wd, "wd")])
    return model(g, opset), {"x": feed((2, 128), 15)}


def tied_weights(opset=13):
    """One embedding table read by a Gather (rows) and by a Gemm with transB=1 (the output layer)."""
    emb = weights((500, 96), 14, spread=False)
    nodes = [helper.make_node("Gather", ["emb", "ids"], ["e"], axis=0),
             helper.make_node("Gemm", ["e", "emb"], ["logits"], transB=1)]
    g = helper.make_graph(nodes, "tied", [helper.make_tensor_value_info("ids", TensorProto.INT64, [5])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [5, 500])], [numpy_helper.from_array(emb, "emb")])
    return model(g, opset), {"ids": np.array([0, 7, 123, 499, 250], dtype=np.int64)}


def ir3_inputs(opset=8):
    """IR version 3: every initializer is also listed as a graph input."""
    w = weights((128, 160), 15)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    g = helper.make_graph(nodes, "ir3", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 128]),
                                         helper.make_tensor_value_info("w", TensorProto.FLOAT, [128, 160])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 160])], [numpy_helper.from_array(w, "w")])
    return model(g, opset, ir=3), {"x": feed((2, 128), 16)}


def loop_outer_scope(opset=13):
    """A Loop body reading a main-graph initializer by name (outer scope)."""
    w = weights((96, 96), 16)
    body = helper.make_graph(
        [helper.make_node("MatMul", ["h_in", "w"], ["m"]), helper.make_node("Tanh", ["m"], ["h_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", TensorProto.FLOAT, [1, 96])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [1, 96])])
    nodes = [helper.make_node("Loop", ["n", "", "h0"], ["h"], body=body)]
    g = helper.make_graph(nodes, "loop", [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                                          helper.make_tensor_value_info("h0", TensorProto.FLOAT, [1, 96])],
                          [helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 96])], [numpy_helper.from_array(w, "w")])
    return model(g, opset), {"n": np.array(3, dtype=np.int64), "h0": feed((1, 96), 17)}


def lstm(opset=14):
    """An LSTM with W [1, 4H, I] and R [1, 4H, H] initializers."""
    hidden, inputs = 64, 96
    W, R = weights((1, 4 * hidden, inputs), 18, spread=False), weights((1, 4 * hidden, hidden), 19, spread=False)
    nodes = [helper.make_node("LSTM", ["x", "W", "R"], ["y", "yh"], hidden_size=hidden)]
    g = helper.make_graph(nodes, "lstm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 1, inputs])],
                          [helper.make_tensor_value_info("yh", TensorProto.FLOAT, [1, 1, hidden])],
                          [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R")])
    return model(g, opset), {"x": feed((5, 1, inputs), 20)}


def typed_float_data(opset=13):
    """A float weight stored in float_data instead of raw_data."""
    w = weights((160, 128), 21)
    t = helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.reshape(-1).tolist())
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    g = helper.make_graph(nodes, "typed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 160])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 128])], [t])
    return model(g, opset), {"x": feed((2, 160), 22)}


def initializer_as_input(opset=13):
    """IR 4+: an initializer also listed as a graph input (an overridable default)."""
    w = weights((128, 160), 23)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    g = helper.make_graph(nodes, "overridable", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 128]),
                                                 helper.make_tensor_value_info("w", TensorProto.FLOAT, [128, 160])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 160])], [numpy_helper.from_array(w, "w")])
    return model(g, opset), {"x": feed((2, 128), 24)}


def small_only(opset=13):
    """Nothing big enough to shrink."""
    w = weights((32, 32), 25)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32])], [numpy_helper.from_array(w, "w")])
    return model(g, opset), {"x": feed((2, 32), 26)}


def stft_basis(opset=13):
    """A windowed Fourier basis as a Conv weight: few distinct values per column (a codebook case)."""
    n = 256
    k = np.arange(n // 2 + 1)[:, None]
    t = np.arange(n)[None, :]
    window = np.hanning(n)
    basis = np.concatenate([np.cos(2 * np.pi * k * t / n), np.sin(2 * np.pi * k * t / n)]) * window
    w = basis[:, None, :].astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], strides=[128])]
    g = helper.make_graph(nodes, "stft", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 258, 7])], [numpy_helper.from_array(w, "w")])
    return model(g, opset), {"x": feed((1, 1, 1024), 27)}


def transposed_weights(opset=13):
    """Weights behind a Transpose, as converters leave them: a conv kernel stored [kh, kw, in, out]
    (perm 3, 2, 0, 1) and a MatMul weight stored [out, in] (no perm: the axes reversed)."""
    kernel = np.ascontiguousarray(weights((64, 32, 3, 3), 28).transpose(2, 3, 1, 0))  # [kh, kw, in, out]
    fc = weights((40, 64 * 4 * 4), 29)  # [out, in]
    nodes = [
        helper.make_node("Transpose", ["kernel"], ["k"], perm=[3, 2, 0, 1]),
        helper.make_node("Conv", ["x", "k"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv"),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Flatten", ["r"], ["f"], axis=1),
        helper.make_node("Transpose", ["fc"], ["fc_t"]),
        helper.make_node("MatMul", ["f", "fc_t"], ["y"], name="mm"),
    ]
    g = helper.make_graph(nodes, "transposed", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 40])],
                          [numpy_helper.from_array(kernel, "kernel"), numpy_helper.from_array(fc, "fc")])
    return model(g, opset), {"x": feed((1, 32, 8, 8), 30)}


def transformer_block(opset=17):
    """A decoder block as exporters write it: a token embedding (Gather rows), LayerNormalization,
    attention with Q/K/V/output MatMul weights split into heads by Reshape and Transpose, a GELU-free
    feed-forward pair, and an output layer tied to the embedding through a Transpose (perm 1, 0)."""
    vocab, d, heads, ff, seq = 512, 128, 4, 256, 6
    emb = weights((vocab, d), 31, spread=False)
    wq, wk, wv, wo = (weights((d, d), s) for s in (32, 33, 34, 35))
    w1, w2 = weights((d, ff), 36), weights((ff, d), 37)
    gamma, beta = np.ones(d, np.float32), np.zeros(d, np.float32)
    split = np.array([1, seq, heads, d // heads], dtype=np.int64)
    merge = np.array([1, seq, d], dtype=np.int64)
    scale = np.array(1.0 / np.sqrt(d // heads), dtype=np.float32)
    nodes = [
        helper.make_node("Gather", ["emb", "ids"], ["x0"], axis=0, name="embed"),
        helper.make_node("LayerNormalization", ["x0", "gamma", "beta"], ["n0"], axis=-1, epsilon=1e-5),
    ]
    for name, w in (("q", "wq"), ("k", "wk"), ("v", "wv")):
        nodes += [helper.make_node("MatMul", ["n0", w], [name], name=name + "_proj"),
                  helper.make_node("Reshape", [name, "split"], [name + "_h"]),
                  helper.make_node("Transpose", [name + "_h"], [name + "_t"], perm=[0, 2, 3, 1] if name == "k" else [0, 2, 1, 3])]
    nodes += [
        helper.make_node("MatMul", ["q_t", "k_t"], ["scores"]),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1),
        helper.make_node("MatMul", ["attn", "v_t"], ["ctx_h"]),
        helper.make_node("Transpose", ["ctx_h"], ["ctx_t"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx_t", "merge"], ["ctx"]),
        helper.make_node("MatMul", ["ctx", "wo"], ["o"], name="o_proj"),
        helper.make_node("Add", ["x0", "o"], ["x1"]),
        helper.make_node("LayerNormalization", ["x1", "gamma", "beta"], ["n1"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["n1", "w1"], ["f1"], name="ff1"),
        helper.make_node("Relu", ["f1"], ["f1r"]),
        helper.make_node("MatMul", ["f1r", "w2"], ["f2"], name="ff2"),
        helper.make_node("Add", ["x1", "f2"], ["x2"]),
        helper.make_node("Transpose", ["emb"], ["emb_t"], perm=[1, 0]),
        helper.make_node("MatMul", ["x2", "emb_t"], ["logits"], name="lm_head"),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in ((emb, "emb"), (wq, "wq"), (wk, "wk"), (wv, "wv"), (wo, "wo"), (w1, "w1"),
                                                         (w2, "w2"), (gamma, "gamma"), (beta, "beta"), (split, "split"),
                                                         (merge, "merge"), (scale, "scale"))]
    g = helper.make_graph(nodes, "decoder_block", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, seq])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, seq, vocab])], inits)
    ids = np.array([[3, 77, 500, 0, 256, 131]], dtype=np.int64)
    return model(g, opset), {"ids": ids}


def values_at_the_limits(opset=13):
    """Weights at the edge of their type's range: fp16 values at +-65504 and near it (saturated
    masks and biases), which 8-bit codes must not round past the largest fp16; bf16 values near its
    largest (their squares pass float32, where the kernels sum errors); an fp32 mask of
    the lowest fp32 and 0; and, left alone: an fp32 tensor spanning more than float32 holds (+-3e38),
    one of subnormal values, and an fp64 one beyond float32's range."""
    rng = np.random.default_rng(38)
    m16 = rng.normal(0, 1, size=(256, 256)).astype(np.float16)
    m16[7, 5], m16[3, 4], m16[3, 5], m16[100, 200], m16[9, 5] = 65504, 60000, -60000, -65504, 65504
    mask = np.where(np.triu(np.ones((128, 128), bool), 1), np.finfo(np.float32).min, 0).astype(np.float32)
    wide = rng.normal(0, 1, size=(128, 128)).astype(np.float32)
    wide[3, 4], wide[3, 5] = 3e38, -3e38
    big = rng.normal(0, 1, size=(128, 128)).astype(np.float32)  # bf16 near its largest, 3.3895e38
    big[3, 4], big[5, 6], big[3, 9], big[7, 7] = 3.3895e38, 3.386e38, 3.3e38, -1e36
    big_bits = ((big.view(np.uint32) + 0x7FFF + ((big.view(np.uint32) >> 16) & 1)) >> 16).astype(np.uint16)
    b16 = helper.make_tensor("b16", TensorProto.BFLOAT16, big.shape, big_bits.tobytes(), raw=True)
    tiny = (rng.normal(0, 1, size=(128, 128)) * 1e-40).astype(np.float32)  # subnormal: left alone
    beyond = rng.normal(0, 1, size=(128, 128)) * 1e300  # fp64 past float32's range: left alone
    nodes = [helper.make_node("Mul", ["x16", "m16"], ["y16"]), helper.make_node("Add", ["x32", "mask"], ["y_mask"]),
             helper.make_node("Mul", ["x32", "wide"], ["y_wide"]), helper.make_node("Add", ["x32", "tiny"], ["y_tiny"]),
             helper.make_node("Cast", ["x32"], ["x64"], to=TensorProto.DOUBLE), helper.make_node("Mul", ["x64", "beyond"], ["y64"]),
             helper.make_node("Cast", ["b16"], ["b32"], to=TensorProto.FLOAT), helper.make_node("Add", ["x32", "b32"], ["y_bf16"])]
    g = helper.make_graph(nodes, "limits", [helper.make_tensor_value_info("x16", TensorProto.FLOAT16, [256, 256]),
                                            helper.make_tensor_value_info("x32", TensorProto.FLOAT, [128, 128])],
                          [helper.make_tensor_value_info("y16", TensorProto.FLOAT16, [256, 256]),
                           helper.make_tensor_value_info("y_mask", TensorProto.FLOAT, [128, 128]),
                           helper.make_tensor_value_info("y_wide", TensorProto.FLOAT, [128, 128]),
                           helper.make_tensor_value_info("y_tiny", TensorProto.FLOAT, [128, 128]),
                           helper.make_tensor_value_info("y64", TensorProto.DOUBLE, [128, 128]),
                           helper.make_tensor_value_info("y_bf16", TensorProto.FLOAT, [128, 128])],
                          [numpy_helper.from_array(m16, "m16"), numpy_helper.from_array(mask, "mask"), numpy_helper.from_array(wide, "wide"),
                           numpy_helper.from_array(tiny, "tiny"), numpy_helper.from_array(beyond, "beyond"), b16])
    # Small inputs keep the original's products finite (fp16 tops out at 65504).
    return model(g, opset), {"x16": (feed((256, 256), 39) * 0.01).astype(np.float16), "x32": feed((128, 128), 40) * 0.01}


def ort_contrib_ops(opset=13):
    """onnxruntime's fused operators (domain com.microsoft), as its transformer optimizer and
    converters write them: EmbedLayerNormalization (embedding rows), Attention (weights
    [in, 3 * hidden]), FusedMatMul and FusedGemm with [in, out] weights, FusedConv."""
    vocab, positions, d, heads, seq, ff = 512, 192, 96, 4, 6, 192
    word, pos = weights((vocab, d), 41, spread=False), weights((positions, d), 42, spread=False)
    gamma, beta = np.ones(d, np.float32), np.zeros(d, np.float32)
    qkv, qkv_bias = weights((3 * d, d), 43).T.copy(), np.zeros(3 * d, np.float32)  # [in, out]: columns are outputs
    up = weights((ff, d), 44).T.copy()   # FusedMatMul B [in, out]
    out = weights((256, ff), 45).T.copy()  # FusedGemm B [in, out] (transB = 0)
    kernel = weights((64, 32, 3, 3), 46)
    ms = "com.microsoft"
    nodes = [
        helper.make_node("EmbedLayerNormalization", ["ids", "", "word", "pos", "", "gamma", "beta"], ["emb", "mask_index"],
                         domain=ms, epsilon=1e-5, name="embed"),
        helper.make_node("Attention", ["emb", "qkv", "qkv_bias"], ["ctx"], domain=ms, num_heads=heads, name="attention"),
        helper.make_node("FusedMatMul", ["ctx", "up"], ["h"], domain=ms, alpha=1.0, transA=0, transB=0, name="up_proj"),
        helper.make_node("Reshape", ["h", "flat"], ["h2"]),
        helper.make_node("FusedGemm", ["h2", "out"], ["logits"], domain=ms, transB=0, activation="Relu", name="head"),
        helper.make_node("FusedConv", ["img", "kernel"], ["features"], domain=ms, activation="Relu", pads=[1, 1, 1, 1],
                         name="conv"),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in ((word, "word"), (pos, "pos"), (gamma, "gamma"), (beta, "beta"),
                                                         (qkv, "qkv"), (qkv_bias, "qkv_bias"), (up, "up"), (out, "out"),
                                                         (np.array([seq, ff], np.int64), "flat"), (kernel, "kernel"))]
    g = helper.make_graph(nodes, "contrib", [helper.make_tensor_value_info("ids", TensorProto.INT32, [1, seq]),
                                             helper.make_tensor_value_info("img", TensorProto.FLOAT, [1, 32, 12, 12])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [seq, 256]),
                           helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 64, 12, 12])], inits)
    ids = np.array([[3, 77, 500, 0, 256, 131]], dtype=np.int32)
    return model(g, opset, extra_opsets=[helper.make_opsetid(ms, 1)]), {"ids": ids, "img": feed((1, 32, 12, 12), 47)}


def local_function(opset=13, function_opset=None):
    """A model-local function (ModelProto.functions) that holds its weight in a Constant node,
    called twice from the main graph, and reads a main-graph weight passed in by the calls."""
    w, passed = weights((128, 128), 48), weights((128, 128), 49)
    dense = helper.make_function(
        "local", "Dense", ["x", "v"], ["y"],
        [helper.make_node("Constant", [], ["w"], value=numpy_helper.from_array(w, "w"), name="weight"),
         helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("MatMul", ["xw", "v"], ["xwv"]),
         helper.make_node("Relu", ["xwv"], ["y"])],
        [helper.make_opsetid("", function_opset or opset)])
    nodes = [helper.make_node("Dense", ["x", "passed"], ["h"], domain="local", name="call1"),
             helper.make_node("Dense", ["h", "passed"], ["y"], domain="local", name="call2")]
    g = helper.make_graph(nodes, "calls", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 128])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 128])],
                          [numpy_helper.from_array(passed, "passed")])
    m = model(g, opset, extra_opsets=[helper.make_opsetid("local", 1)])
    m.functions.append(dense)
    return m, {"x": feed((4, 128), 50)}


def position_embedding(opset=13):
    """A vision transformer's input: patches from a strided Conv, flattened to [1, 64, 256], plus a
    learned position embedding [1, 64, 256] (read by an Add, whose operands have no channel axis:
    a scale per position, after the leading axis of 1), then a MatMul projection."""
    kernel, pos, proj = weights((256, 3, 8, 8), 51), weights((1, 64, 256), 52, spread=False), weights((256, 256), 53)
    pos = pos * np.exp(np.random.default_rng(54).normal(0, 0.7, size=(1, 64, 1))).astype(np.float32)  # positions differ in range
    nodes = [helper.make_node("Conv", ["img", "kernel"], ["patches"], strides=[8, 8]),
             helper.make_node("Reshape", ["patches", "flat"], ["p2"]),
             helper.make_node("Transpose", ["p2"], ["tokens"], perm=[0, 2, 1]),
             helper.make_node("Add", ["tokens", "pos"], ["x"]),
             helper.make_node("MatMul", ["x", "proj"], ["y"])]
    inits = [numpy_helper.from_array(a, n) for a, n in ((kernel, "kernel"), (pos.astype(np.float32), "pos"), (proj, "proj"),
                                                         (np.array([1, 256, 64], np.int64), "flat"))]
    g = helper.make_graph(nodes, "vit_input", [helper.make_tensor_value_info("img", TensorProto.FLOAT, [1, 3, 64, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64, 256])], inits)
    return model(g, opset), {"img": feed((1, 3, 64, 64), 55)}


def einsum_weights(opset=13):
    """Weights read by Einsum, as TensorFlow and JAX exports write dense layers: a projection
    "bsc,cd->bsd" ([in, out]) and a per-head one "bsd,hdk->bshk" ([heads, in, head width])."""
    w1 = weights((192, 128), 56).T.copy()  # [in 128, out 192]
    w2 = np.transpose(weights((4 * 48, 192), 57).reshape(4, 48, 192), (0, 2, 1)).copy()  # [heads, in, width]
    nodes = [helper.make_node("Einsum", ["x", "w1"], ["h"], equation="bsc,cd->bsd"),
             helper.make_node("Einsum", ["h", "w2"], ["y"], equation="bsd, hdk -> bshk")]
    g = helper.make_graph(nodes, "einsum", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 5, 128])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 4, 48])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    return model(g, opset), {"x": feed((1, 5, 128), 58)}


def classifier_head(opset=13):
    """A classifier's last layer with few classes: MatMul weight [4096, 4], so each input channel
    holds 4 values (separable factors would cost more than the codes; computing them once read past
    a one-entry array, which made the native driver fail with "payload size mismatch")."""
    w = (np.random.default_rng(59).normal(0, 0.05, size=(4096, 4)) *
         np.exp(np.random.default_rng(60).normal(0, 0.7, size=(4096, 1)))).astype(np.float32)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["logits"])], "head",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4096])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [2, 4])], [numpy_helper.from_array(w, "w")])
    return model(g, opset), {"x": feed((2, 4096), 61)}


def small_tensors(opset=13):
    """Two large MatMul weights and small tensors of every kind the float16 rule meets: biases
    (stored as float16), float positions 0..4095 (integers past 2048, which float16 cannot all
    hold: kept), a tensor with values past float16's range (kept), a few values (too few to be worth
    a Cast: kept). The biases' savings pay for a 9th bit on one weight, not both: the one with the
    lower estimated SQNR (w_out, with outliers) gets it."""
    rng = np.random.default_rng(62)
    w_in = (rng.normal(0, 0.05, size=(256, 256))).astype(np.float32)  # even ranges: high SQNR
    w_out = weights((256, 256), 63)  # per-channel spread and outliers: lower SQNR
    biases = [(rng.normal(0, 0.1, size=(2048,))).astype(np.float32) for _ in range(3)]
    positions = np.arange(4096, dtype=np.float32)
    huge = np.full((512,), 1e5, dtype=np.float32)
    few = np.array([0.5, -0.25], dtype=np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w_in"], ["h"]), helper.make_node("MatMul", ["h", "w_out"], ["y"]),
             helper.make_node("Add", ["b0", "b1"], ["b01"]), helper.make_node("Add", ["b01", "b2"], ["b"]),
             helper.make_node("Mul", ["b", "scale"], ["bs"]),
             helper.make_node("ReduceSum", ["positions"], ["psum"], keepdims=1),
             helper.make_node("ReduceMax", ["huge"], ["hmax"], keepdims=1),
             helper.make_node("ReduceSum", ["few"], ["fsum"], keepdims=1)]
    inits = [numpy_helper.from_array(w_in, "w_in"), numpy_helper.from_array(w_out, "w_out"),
             numpy_helper.from_array(positions, "positions"), numpy_helper.from_array(huge, "huge"),
             numpy_helper.from_array(few, "few"), numpy_helper.from_array(np.array(2.0, np.float32), "scale")]
    inits += [numpy_helper.from_array(b, f"b{i}") for i, b in enumerate(biases)]
    g = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 256]),
                           helper.make_tensor_value_info("bs", TensorProto.FLOAT, [2048]),
                           helper.make_tensor_value_info("psum", TensorProto.FLOAT, [1]),
                           helper.make_tensor_value_info("hmax", TensorProto.FLOAT, [1]),
                           helper.make_tensor_value_info("fsum", TensorProto.FLOAT, [1])], inits)
    return model(g, opset), {"x": feed((4, 256), 64)}


ALL = {
    "conv_net_opset11": conv_net,
    "mlp_opset13": mlp,
    "if_branches": if_branches,
    "constant_nodes_opset9": constant_nodes,
    "fp16_raw": fp16_weights,
    "fp16_int32_data": lambda: fp16_weights(typed=True),
    "bf16_and_double": bf16_and_double,
    "tied_weights": tied_weights,
    "ir3_inputs_opset8": ir3_inputs,
    "loop_outer_scope": loop_outer_scope,
    "lstm": lstm,
    "typed_float_data": typed_float_data,
    "initializer_as_input": initializer_as_input,
    "stft_basis": stft_basis,
    "transposed_weights": transposed_weights,
    "transformer_block_opset17": transformer_block,
    "values_at_the_limits": values_at_the_limits,
    "ort_contrib_ops": ort_contrib_ops,
    "local_function": local_function,
    "position_embedding": position_embedding,
    "einsum_weights": einsum_weights,
    "classifier_head": classifier_head,
    "small_tensors": small_tensors,
}


if __name__ == "__main__":
    # Writes the synthetic models to a folder: /usr/bin/python3 tests/python/models.py OUT [NAME ...]
    import os
    import sys

    out, names = sys.argv[1], sys.argv[2:] or list(ALL)
    os.makedirs(out, exist_ok=True)
    for name in names:
        onnx.save(ALL[name]()[0], os.path.join(out, name + ".onnx"))
