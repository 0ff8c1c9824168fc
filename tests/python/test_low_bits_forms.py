"""Low bits (codes over 8 bits) in both forms their chain has had: expand() still reads the first,
and the current one holds the same weights.

tests/fixtures/low_bits_v1.onnx was written by the engine of commit 8dba3e9 from
tests/fixtures/low_bits_source.onnx (tests/fixtures/make_low_bits_v1.py), with 9 and 10 bits: its
low bits are unpacked by Cast(float) -> Div -> Floor -> Mod -> Div -> Reshape. Files written since
unpack them by a Gather from a digit table shared by the graph's chains of one width.
"""
import os
import sys
import tempfile
import unittest

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from test_models import FIXTURES, check, run_cli  # noqa: E402

SOURCE = os.path.join(FIXTURES, "low_bits_source.onnx")
FIRST_FORM = os.path.join(FIXTURES, "low_bits_v1.onnx")


def weights(path):
    return {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}


class LowBitsForms(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        for args in (["--tensor-bits", "w0=9,w1=10", "-o", cls.path("current.onnx")],
                     ["--expand", "-o", cls.path("first_expanded.onnx")]):
            p = run_cli(SOURCE if "--tensor-bits" in args else FIRST_FORM, *args)
            assert p.returncode == 0, p.stderr
        p = run_cli(cls.path("current.onnx"), "--expand", "-o", cls.path("current_expanded.onnx"))
        assert p.returncode == 0, p.stderr

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.dir.name, name)

    def test_the_current_form_gathers_from_one_digit_table_a_width(self):
        m = onnx.load(self.path("current.onnx"))
        check(self.path("current.onnx"))
        ops = [n.op_type for n in m.graph.node]
        self.assertEqual(ops.count("Gather"), 2)  # one a weight
        self.assertEqual(ops.count("Mod"), 2)     # one a digit table: two widths, 9 and 10 bits
        self.assertEqual(ops.count("Floor"), 2)
        byte_values = [t for t in m.graph.initializer if list(t.dims) == [256, 1]]
        self.assertEqual(len(byte_values), 1)     # shared by both tables
        self.assertEqual(numpy_helper.to_array(byte_values[0]).ravel().tolist(), list(range(256)))

    def test_the_first_form_still_expands_to_the_same_weights(self):
        first = onnx.load(FIRST_FORM)
        self.assertIn("Floor", [n.op_type for n in first.graph.node])
        self.assertNotIn("Gather", [n.op_type for n in first.graph.node])
        expanded = onnx.load(self.path("first_expanded.onnx"))
        check(self.path("first_expanded.onnx"))
        self.assertEqual([n.op_type for n in expanded.graph.node], ["MatMul", "MatMul"])
        a, b = weights(self.path("first_expanded.onnx")), weights(self.path("current_expanded.onnx"))
        self.assertEqual(sorted(a), ["w0", "w1"])
        self.assertEqual(sorted(b), ["w0", "w1"])
        for name in a:
            self.assertTrue(np.array_equal(a[name].view(np.uint32), b[name].view(np.uint32)), name)
        # and close to the source's weights: 9 and 10 bits
        source = weights(SOURCE)
        for name in a:
            self.assertLess(np.linalg.norm(a[name] - source[name]) / np.linalg.norm(source[name]), 5e-3, name)

    def test_a_digit_table_read_by_anything_else_stays(self):
        # The 10-bit weight's table made a graph output too: both weights expand, and that table, its
        # nodes and its constants stay for the output; the 9-bit weight's table goes.
        m = onnx.load(self.path("current.onnx"))
        gathers = [n for n in m.graph.node if n.op_type == "Gather"]
        tables = {n.input[0] for n in gathers}
        self.assertEqual(len(tables), 2)
        kept = gathers[1].input[0]
        m.graph.output.append(onnx.helper.make_tensor_value_info(kept, onnx.TensorProto.FLOAT, [256, None]))
        onnx.save(m, self.path("table_out.onnx"))
        p = run_cli(self.path("table_out.onnx"), "--expand", "-o", self.path("table_out_expanded.onnx"))
        self.assertEqual(p.returncode, 0, p.stderr)
        check(self.path("table_out_expanded.onnx"))
        e = onnx.load(self.path("table_out_expanded.onnx"))
        self.assertEqual([n.op_type for n in e.graph.node], ["Cast", "Div", "Floor", "Mod", "Div", "MatMul", "MatMul"])
        self.assertEqual(e.graph.node[4].output[0], kept)
        got = weights(self.path("table_out_expanded.onnx"))
        want = weights(self.path("current_expanded.onnx"))
        for name in ("w0", "w1"):
            self.assertTrue(np.array_equal(got[name].view(np.uint32), want[name].view(np.uint32)), name)
        # the weights, and the kept table's constants: the byte values (made with the first table), digits and base
        self.assertEqual(sorted(got), ["lb0.b", "lb1.d", "lb1.m", "w0", "w1"])


if __name__ == "__main__":
    unittest.main()
