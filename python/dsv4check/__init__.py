"""dsv4check in-process: the op registry, the float64 references and the oracle of `dsv4check verify`, on NumPy
arrays and on any tensor with ``__dlpack__`` (PyTorch tensors on CPU or GPU; GPU tensors are copied to the host).

    import dsv4check
    dsv4check.ops()                                    # the registry: ops, argument schema, attrs, policies
    ref = dsv4check.reference(op, inputs, attrs)       # {output: array}
    v = dsv4check.judge(op, inputs, outputs, attrs)    # Verdict; str(v) is what `dsv4check verify` prints
    dsv4check.assert_op_close(op, inputs, outputs, attrs)   # AssertionError carrying that text
    dsv4check.save_fixture(path, op, inputs, outputs, attrs)  # a fixture `dsv4check verify` replays

inputs and outputs are dicts by the ops.md names; attrs a dict of the op's attributes, plus optionally
attrs["dtypes"] = {tensor: format} for raw codes (uint8 fp8/e8m0, uint16 bf16), keyed as in fixtures. Bad input
raises ValueError naming the argument and what the op's schema admits. docs/python.md has the details.
"""
import json
import os
import re

from . import _arrays, _core
from ._arrays import CodeArray
from ._verdict import Localisation, OutputVerdict, Verdict, WorstElement

__all__ = ["ops", "reference", "judge", "assert_op_close", "save_fixture", "example_case", "Verdict",
           "OutputVerdict", "Localisation", "WorstElement", "CodeArray"]

IN_PROCESS_NAME = "<in-process>"  # stands for the file name in the text of an in-process verdict

_registry = None


def ops():
    """The registry: {op name: {summary, contract, inputs, outputs, attrs, oracle, default_shapes}}. inputs and
    outputs are lists of {name, dtypes, shape, optional, note}; attrs of {name, default, doc, choices,
    optional}; oracle maps each output to its default policy {policy, params, rationale}."""
    global _registry
    if _registry is None:
        _registry = {o["name"]: o for o in json.loads(_core.registry_json())}
    return json.loads(json.dumps(_registry))  # a copy the caller may change


def _prepare(op, inputs, outputs, attrs):
    if not isinstance(op, str):
        raise ValueError(f"op must be an op name (str), got {type(op).__name__}")
    attrs_json, in_types, out_types = _arrays.split_attrs(op, attrs, inputs or {}, outputs or {})
    keep = []
    ins = _arrays.views("input", inputs, in_types, keep)
    outs = _arrays.views("output", outputs, out_types, keep)
    return ins, outs, attrs_json, keep


def reference(op, inputs, attrs=None):
    """The op's float64 reference, rounded once to each output's dtype: {output name: array} (CodeArray for
    BF16/fp8/e8m0 outputs)."""
    ins, _, attrs_json, keep = _prepare(op, inputs, None, attrs)
    result = _core.reference(op, ins, attrs_json)
    del keep
    return {n: _arrays.to_numpy(*r) for n, r in result.items()}


def judge(op, inputs, outputs, attrs=None):
    """Judges `outputs` against the recomputed reference with each output's policy: a Verdict, the same one
    `dsv4check verify` gives the fixture save_fixture() writes for these arguments."""
    ins, outs, attrs_json, keep = _prepare(op, inputs, outputs, attrs)
    passed, text, verdict_json = _core.judge(op, ins, outs, attrs_json, IN_PROCESS_NAME)
    del keep
    return Verdict(passed, text, verdict_json)


def fixture_bytes(op, inputs, outputs, attrs=None, source="", note=""):
    """The fixture file (docs/fixtures.md) of these arguments, as bytes."""
    ins, outs, attrs_json, keep = _prepare(op, inputs, outputs, attrs)
    data = _core.fixture_bytes(op, ins, outs, attrs_json, source, note)
    del keep
    return data


def save_fixture(path, op, inputs, outputs, attrs=None, source="", note=""):
    """Writes the fixture of these arguments (schema dsv4check-fixture/1; FNUZ/E8M0 tensors stored as uint8 with
    their format in attrs["dtypes"]) for `dsv4check verify`. Returns the path."""
    data = fixture_bytes(op, inputs, outputs, attrs, source, note)
    with open(path, "wb") as f:
        f.write(data)
    return path


# Where assert_op_close saves failing cases (set by the pytest plugin's --dsv4check-save-failures DIR).
_failure_dir = None
_saved_names = set()


def _set_failure_dir(path):
    global _failure_dir
    _failure_dir = path
    _saved_names.clear()


def _save_failure(op, inputs, outputs, attrs):
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", test or op).strip("_") or op
    name, n = stem, 1
    while name in _saved_names or os.path.exists(os.path.join(_failure_dir, name + ".safetensors")):
        n += 1
        name = f"{stem}.{n}"
    _saved_names.add(name)
    os.makedirs(_failure_dir, exist_ok=True)
    path = os.path.join(_failure_dir, name + ".safetensors")
    save_fixture(path, op, inputs, outputs, attrs, source=test or "dsv4check.assert_op_close")
    return path


def assert_op_close(op, inputs, outputs, attrs=None):
    """judge(), raising AssertionError with the verdict's text when any output fails. Under the pytest plugin's
    --dsv4check-save-failures DIR the failing case is also saved there as a fixture. Returns the Verdict."""
    __tracebackhide__ = True  # pytest shows the caller's line and the verdict, not this function
    verdict = judge(op, inputs, outputs, attrs)
    if not verdict.passed:
        msg = str(verdict)
        if _failure_dir:
            path = _save_failure(op, inputs, outputs, attrs)
            msg += f"saved as {path}; replay: dsv4check verify {path}\n"
        raise AssertionError(msg)
    return verdict


def example_case(op, seed=0, shape_index=0):
    """A case made by the op's registry generator at its default shape `shape_index`: (inputs, attrs). Tensors
    NumPy has no dtype for come as CodeArray."""
    tensors, attrs_json = _core.example_case(op, int(seed), int(shape_index))
    return {n: _arrays.to_numpy(*t) for n, t in tensors.items()}, json.loads(attrs_json)
