"""The door fuzz (tests/door_fuzz.py): every malformed or adversarial call through a public
door is refused with an error that names the bad input, and changes nothing; no call
crashes the process. The cases run in child processes under NUMBA_BOUNDSCHECK=1, so that
an out-of-bounds access in compiled code fails this test instead of ending the run.
``UNO_FUZZ_BUDGET=N`` runs N rounds (other seeds, configurations and moments of a game);
``python tests/door_fuzz.py --details`` prints the same table and every case not clear."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import door_fuzz  # noqa: E402

pytestmark = pytest.mark.slow


def test_every_door_refuses_bad_input_clearly_and_changes_nothing(record_property):
    budget = int(os.environ.get("UNO_FUZZ_BUDGET", "1"))
    result = door_fuzz.run(budget)
    table = door_fuzz.table(result)
    print("\n" + table)
    record_property("door_fuzz_counts", result["counts"])
    assert sum(result["counts"].values()) >= 400  # the case list did not shrink by accident
    bad = [row for row in result["rows"] if row["class"] != "clear"]
    listed = "\n".join(f"{r['class']:8} {r['door']:7} {r['label']}: {r['detail']}" for r in bad[:40])
    assert not bad, f"{len(bad)} case(s) not clear:\n{listed}\n{table}"


def test_the_classes_are_told_apart():
    """The harness itself: a crash, a half-applied refusal, an accepted impossible input and
    an unclear error are each recognised (not everything is counted clear)."""
    import numpy as np

    class Box:
        def __init__(self):
            self.value = np.zeros(2)

    def case(call, tokens):
        def build(rng):
            box = Box()
            return box, lambda: call(box), tokens, None

        return door_fuzz.Case("harness", "case", build)

    def half_applied(box):
        box.value[0] = 1
        raise ValueError("value refused")

    def unclear(box):
        raise IndexError("index 3 is out of bounds")

    def vague(box):
        raise ValueError("something went wrong")

    assert door_fuzz.classify(1, case(half_applied, ["value"]))[0] == "changed"
    assert door_fuzz.classify(1, case(lambda box: None, ["value"]))[0] == "taken"
    assert door_fuzz.classify(1, case(unclear, ["index", "3"]))[0] == "unclear"
    assert door_fuzz.classify(1, case(vague, ["value"]))[0] == "unclear"
    assert door_fuzz.classify(1, case(lambda box: box.missing(), ["value"]))[0] == "unclear"

    def clear(box):
        raise ValueError("value must be positive, got -1")

    assert door_fuzz.classify(1, case(clear, ["value", "-1"]))[0] == "clear"
