"""Average the weights of policy networks of one run (a "model soup") into one network file.

    python -m experiments.average_policies OUT.npz runs/NAME/policies/policy_00450.npz ...

The networks must have the same shapes and input layout (policies exported by one
training run, or by runs that continued one another). PPO's policies wander around a
good one from update to update; their average played better than each of them
(docs/training.md).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

from uno_env import neural


def average_networks(networks: list[neural.Network]) -> dict:
    """The element-wise mean of the weights (input layout and scaling must agree)."""
    if not networks:
        raise ValueError("give at least one network")
    first = networks[0]
    for other in networks[1:]:
        for name in neural.ARRAYS:
            a, b = getattr(first, name), getattr(other, name)
            if a.shape != b.shape:
                raise ValueError(f"networks differ in the shape of {name}: {a.shape} vs {b.shape}")
            if name in ("scale", "gather", "params") and not np.array_equal(a, b):
                raise ValueError(f"networks differ in their input layout ({name})")
    return {name: np.mean([getattr(n, name) for n in networks], axis=0) for name in neural.ARRAYS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m experiments.average_policies", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("out", type=pathlib.Path, help="network file to write (.npz)")
    parser.add_argument("policies", nargs="+", type=pathlib.Path, help="network files to average")
    args = parser.parse_args(argv)
    try:
        networks = [neural.load_network(p) for p in args.policies]
        arrays = average_networks(networks)
    except ValueError as err:
        print(f"average_policies: error: {err}", file=sys.stderr)
        return 2
    meta = {**networks[0].meta, "averaged_from": [str(p) for p in args.policies]}
    neural.write_network(args.out, neural.Network(arrays, meta))
    print(f"wrote {args.out}: the mean of {len(networks)} networks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
