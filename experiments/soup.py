"""Average the weights of policy networks of one run (a "model soup") into one network file.

    python -m experiments.soup OUT.npz runs/NAME/policies/policy_00450.npz ...

The networks must have the same shapes and input layout (policies exported by one
training run, or by runs that continued one another). PPO's policies wander around a
good one from update to update; their average played better than each of them
(docs/training.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pathlib
import sys

import numpy as np

from uno_env.agents import neural


def average_networks(networks: list[neural.Network]) -> dict:
    """The element-wise mean of the weights (the input scaling, the observation slices and
    the action blocks and the seat order must agree)."""
    if not networks:
        raise ValueError("give at least one network")
    first = networks[0]
    for other in networks[1:]:
        for name in neural.WEIGHTS:
            a, b = getattr(first, name), getattr(other, name)
            if a.shape != b.shape:
                raise ValueError(f"networks differ in the shape of {name}: {a.shape} vs {b.shape}")
        if not np.array_equal(first.scale, other.scale) or not same_records(first.inputs, other.inputs):
            raise ValueError("networks differ in their input layout (scale or observation slices)")
        if not same_records(first.actions, other.actions):
            raise ValueError("networks differ in their action blocks")
        if first.seat_order != other.seat_order:
            raise ValueError(f"networks read the seats in different orders: {first.seat_order} vs {other.seat_order}")
    return {name: np.mean([getattr(n, name) for n in networks], axis=0) for name in neural.WEIGHTS}


def same_records(a: tuple, b: tuple) -> bool:
    """The same slices (or action blocks): names, places and sizes, and labels where both
    files record them (version-1 files do not)."""
    return len(a) == len(b) and all(
        dataclasses.replace(x, labels=None) == dataclasses.replace(y, labels=None)
        and (x.labels is None or y.labels is None or x.labels == y.labels)
        for x, y in zip(a, b)
    )


def meta_entry(item: str) -> tuple[str, object]:
    """``KEY=JSON`` -> (key, value); ValueError naming a bad one."""
    key, sep, value = item.partition("=")
    try:
        if not sep or not key:
            raise ValueError
        return key, json.loads(value)
    except ValueError:
        raise ValueError(f"--meta {item!r}: expected KEY=JSON, e.g. plays_under='[\"seven_o\"]'") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.soup", description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=pathlib.Path, help="network file to write (.npz)")
    parser.add_argument("policies", nargs="+", type=pathlib.Path, help="network files to average")
    parser.add_argument(
        "--meta", action="append", default=[], metavar="KEY=JSON", help="an entry of the file's meta (repeatable)"
    )
    args = parser.parse_args(argv)
    try:
        extra = dict(meta_entry(item) for item in args.meta)
        networks = [neural.load_network(p) for p in args.policies]
        arrays = average_networks(networks)
    except ValueError as err:
        print(f"average_policies: error: {err}", file=sys.stderr)
        return 2
    first = networks[0]
    meta = {**first.meta, "averaged_from": [str(p) for p in args.policies], **extra}
    neural.write_network(args.out, neural.Network(arrays, first.inputs, first.actions, meta, first.seat_order))
    print(f"wrote {args.out}: the mean of {len(networks)} networks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
