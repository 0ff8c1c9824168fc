"""The engine's outputs do not change by accident: every fixture and every option set the other
tests use, hashed and compared with tests/fixtures/output_hashes.json.

A refactoring must give the same bytes. A change that means to change outputs regenerates the
file and says in its commit what changed and what that did to accuracy:
  ONNX_SHRINK_UPDATE_HASHES=1 /usr/bin/python3 -m unittest tests/python/test_output_hashes.py

Covered: the synthetic models (models.py) in every MODES entry of test_models, the shrunk
int8 outputs expanded again, the two corpus models in every mode and with rounding draws, and
the random graphs (random_graphs.py) in every mode of the RandomGraphs test (their exit codes
too: a bad-input error must stay one).
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import unittest

import onnx

sys.path.insert(0, os.path.dirname(__file__))
import models  # noqa: E402
import random_graphs  # noqa: E402
from test_models import CLI, FIXTURES, MODES, ROOT  # noqa: E402

HASHES = os.path.join(ROOT, "tests", "fixtures", "output_hashes.json")
CORPUS_EXTRA = {"int8_draw3": ["--rounding-draw", "3"], "int8_block64_dq": ["--block", "64", "--form", "dq"],
                "int8_bits9": ["--bits", "9"], "int8_bits12": ["--bits", "12"], "int8_small_fp16": ["--small", "fp16"]}
RANDOM_MODES = [[], ["--form", "dq"], ["--mode", "palette"], ["--scheme", "tensor"], ["--block", "32"], ["--expand"],
                ["--rounding-draw", "3"], ["--rounding-draw", "3", "--scheme", "tensor"], ["--bits", "10"],
                ["--min-elements", "128"]]
RANDOM_SEEDS = 150


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:24]


def outcome(source, out, flags):
    """The output's hash, or the exit code of a run that wrote none."""
    p = subprocess.run([CLI, source, "-o", out, "-q", *flags], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return f"exit {p.returncode}"
    result = digest(out)
    os.unlink(out)
    return result


def all_outcomes(folder):
    found = {}
    out = os.path.join(folder, "out.onnx")
    for name, build in models.ALL.items():
        model, _ = build()
        source = os.path.join(folder, name + ".onnx")
        onnx.save(model, source)
        for mode, flags in MODES.items():
            found[f"{name}/{mode}"] = outcome(source, out, flags)
            if mode in ("int8", "int8_tensor", "int8_dq", "int8_bits10") and not found[f"{name}/{mode}"].startswith("exit"):
                shrunk = os.path.join(folder, "shrunk.onnx")
                subprocess.run([CLI, source, "-o", shrunk, "-q", *flags], check=True)
                found[f"{name}/{mode}/expanded"] = outcome(shrunk, out, ["--expand"])
    for fixture in ("silero_vad_v5.onnx", "ch_PP-OCRv4_det_infer.onnx"):
        for mode, flags in {**MODES, **CORPUS_EXTRA}.items():
            found[f"{fixture}/{mode}"] = outcome(os.path.join(FIXTURES, fixture), out, flags)
    for seed in range(RANDOM_SEEDS):
        source = os.path.join(folder, f"r{seed}.onnx")
        with open(source, "wb") as f:
            f.write(random_graphs.random_model(seed))
        for flags in RANDOM_MODES:
            # --expand takes no shrinking flag (it refuses one): the floor of 16 changed nothing there.
            floor = [] if "--expand" in flags else ["--min-elements", "16"]
            found[f"random{seed}/{' '.join(flags) or 'default'}"] = outcome(source, out, [*floor, *flags])
    return found


class OutputHashes(unittest.TestCase):
    def test_outputs_match_the_committed_hashes(self):
        with tempfile.TemporaryDirectory() as d:
            found = all_outcomes(d)
        if os.environ.get("ONNX_SHRINK_UPDATE_HASHES"):
            with open(HASHES, "w") as f:
                json.dump(found, f, indent=0, sort_keys=True)
                f.write("\n")
        with open(HASHES) as f:
            expected = json.load(f)
        self.assertEqual(sorted(found), sorted(expected), "the set of cases changed: regenerate (see the module doc)")
        differ = [k for k in sorted(found) if found[k] != expected[k]]
        self.assertEqual(differ, [], f"{len(differ)} of {len(found)} outputs differ from the committed hashes")
        # Most runs write a model (the hashes are not all of errors).
        self.assertGreater(sum(not v.startswith("exit") for v in found.values()), 1000)


if __name__ == "__main__":
    unittest.main()
