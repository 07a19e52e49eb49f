"""Verdicts of dsv4check.judge(): the oracle's JSON verdict (what `dsv4check verify --json` prints under
"outputs") as objects, and the text `dsv4check verify` prints as str()."""
import json
from typing import NamedTuple


class WorstElement(NamedTuple):
    """One of the worst elements of an output: its index, both values, the error and the bound it broke."""
    index: tuple
    actual: object
    expected: object
    error: object
    bound: object
    kind: str
    note: str


class Localisation:
    """Where an output's failures lie: a one-line summary, rows and columns (compacted ranges), tiles."""

    def __init__(self, j):
        self.summary = j.get("summary", "")
        self.rows = j.get("rows")
        self.cols = j.get("cols")
        self.row_tiles = j.get("row_tiles")
        self.col_tiles = j.get("col_tiles")
        self.tiles = j.get("tiles", [])

    def __repr__(self):
        return f"Localisation({self.summary!r})"


class OutputVerdict:
    """The verdict on one output: its policy and the reasoning for it, counts, summary, localisation, worst."""

    def __init__(self, j):
        self.output = j["output"]
        self.passed = bool(j["pass"])
        self.policy = j["policy"]
        self.params = j["params"]
        self.rationale = j["rationale"]
        self.checked = j["checked"]
        self.failed = j["failed"]
        self.counts = j["counts"]
        self.metric = j.get("metric")
        self.summary = j.get("summary", "")
        self.where = Localisation(j.get("where", {}))
        self.worst = [WorstElement(tuple(w["index"]), w["actual"], w["expected"], w["error"], w["bound"], w["kind"],
                                   w["note"]) for w in j.get("worst", [])]
        self.notes = list(j.get("notes", []))

    def __bool__(self):
        return self.passed

    def __repr__(self):
        return f"OutputVerdict({self.summary!r})"


class Verdict:
    """The judgement of one op call. ``passed``; ``outputs`` by output name (in the op's output order);
    ``json`` the oracle's verdict as a dict; ``str(verdict)`` is the text `dsv4check verify` prints for the
    fixture of the same call."""

    def __init__(self, passed, text, verdict_json):
        self.passed = bool(passed)
        self.text = text
        self.json = json.loads(verdict_json)
        self.op = self.json["op"]
        self.outputs = {o["output"]: OutputVerdict(o) for o in self.json["outputs"]}

    def __bool__(self):
        return self.passed

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<dsv4check.Verdict {'PASS' if self.passed else 'FAIL'} {self.op}>"
