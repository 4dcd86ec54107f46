"""Notebooks with numbers and text JavaScript's JSON would rewrite, built and edited by nbformat itself.

  notebooks.py build DIR            writes DIR/exact.ipynb (nbformat.write)
  notebooks.py edit FILE CELL SRC   prints the bytes nbformat.writes gives after setting cell CELL's source to SRC
  notebooks.py tag FILE CELL TAG    the same, after adding TAG to cell CELL's metadata.tags
  notebooks.py corpus DIR N SEED    writes N notebooks with random JSON-compatible metadata to DIR
  notebooks.py check DIR CELL SRC   compares each DIR/*.ipynb.kiln with nbformat's edit of DIR/*.ipynb; prints mismatches
"""
import json
import math
import os
import random
import sys

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

EXACT = {
    "float_int": 2.0,
    "neg_zero": -0.0,
    "small": 1e-05,
    "large": 1e20,
    "edge16": 1e16,
    "edge15": 1e15,
    "tiny": 1.5e-07,
    "big_int": 123456789012345678901234567890,
    "neg_big_int": -98765432109876543210,
    "nan": float("nan"),
    "inf": float("inf"),
    "ninf": float("-inf"),
    "text": "é ü 日本 \u2028 \u2029 😀 \x7f tab\t \x01 \"q\" \\",
    "keys": {"b": 1, "a": 2, "é": 3, "\uffff": 4, "😀": 5, "B": 6, "10": 7, "9": 8},
}


def build(folder):
    nb = new_notebook(
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "exact": EXACT,
            "widgets": {
                "application/vnd.jupyter.widget-state+json": {
                    "state": {"m1": {"model_name": "FloatSliderModel", "state": {"value": 2.0, "max": 100.0, "step": 0.1, "min": 0.0}}},
                    "version_major": 2,
                    "version_minor": 0,
                }
            },
        }
    )
    nb.cells.append(
        new_code_cell(
            source="show()",
            execution_count=1,
            metadata={"timing": {"elapsed": 12.0, "ratio": 1e-05}, "exact": EXACT},
            outputs=[
                new_output("display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}, metadata={"image/png": {"width": 640.0, "height": 480}}),
                new_output("execute_result", execution_count=1, data={"application/json": {"x": 1.0, "y": [1e-05, 1e20, 2**100, float("nan")], "z": 0.5}, "text/plain": "{'x': 1.0}"}),
                new_output("stream", name="stdout", text="1.0 stays 1.0\n"),
            ],
        )
    )
    nb.cells.append(new_code_cell(source="x = 1", execution_count=None))
    nb.cells.append(new_markdown_cell(source="# Notes é", metadata={"w": 3.0}))
    nbformat.write(nb, os.path.join(folder, "exact.ipynb"))


def edited(file, cell, source):
    nb = nbformat.read(file, as_version=4)
    nb.cells[int(cell)].source = source
    return nbformat.writes(nb) + "\n"


def tagged(file, cell, tag):
    nb = nbformat.read(file, as_version=4)
    nb.cells[int(cell)].metadata.setdefault("tags", []).append(tag)
    return nbformat.writes(nb) + "\n"


def random_value(rng, depth):
    kind = rng.randrange(10 if depth < 4 else 7)
    if kind == 0:
        return rng.choice([0.0, -0.0, 1.0, 2.0, 1e16, 1e15, 1e22, 1e-05, 1e-04, 1e308, 5e-324, float("nan"), float("inf"), float("-inf")])
    if kind == 1:
        return float(rng.randint(-10**6, 10**6)) * rng.choice([1, 10**rng.randint(0, 30), 10.0**-rng.randint(0, 30)])
    if kind == 2:
        return rng.uniform(-1, 1) * 10 ** rng.randint(-320, 308)
    if kind == 3:
        return rng.randint(-(10**rng.randint(0, 40)), 10**rng.randint(0, 40))
    if kind == 4:
        alphabet = "aZ0 é日😀\u2028\u2029\x00\x1f\x7f\"\\/\t\n\r\uffff\ud7ff\ue000"
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    if kind == 5:
        return rng.choice([True, False, None])
    if kind == 6:
        return rng.randint(-100, 100)
    if kind in (7, 8):
        return {"".join(rng.choice("ab😀é\uffffZ_1") for _ in range(rng.randrange(1, 4))): random_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(5))]


def corpus(folder, count, seed):
    rng = random.Random(int(seed))
    for i in range(int(count)):
        nb = new_notebook(metadata={"random": random_value(rng, 0)})
        nb.cells.append(new_code_cell(source="a", metadata={"random": random_value(rng, 0)}))
        nb.cells.append(new_code_cell(source="b", outputs=[new_output("execute_result", execution_count=1, data={"application/json": {"v": random_value(rng, 0)}}, metadata={"m": random_value(rng, 0)})]))
        nbformat.write(nb, os.path.join(folder, f"nb{i:03}.ipynb"))


def check(folder, cell, source):
    bad = []
    names = sorted(n for n in os.listdir(folder) if n.endswith(".ipynb"))
    for name in names:
        want = edited(os.path.join(folder, name), cell, source).encode("utf-8", "surrogatepass")
        with open(os.path.join(folder, name + ".kiln"), "rb") as f:
            got = f.read()
        if got != want:
            bad.append(name)
    print(json.dumps({"checked": len(names), "mismatched": bad}))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "build":
        build(*args)
    elif command == "edit":
        sys.stdout.write(edited(*args))
    elif command == "tag":
        sys.stdout.write(tagged(*args))
    elif command == "corpus":
        corpus(*args)
    elif command == "check":
        check(*args)
