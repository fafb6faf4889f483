"""Two source trees of uno_env timed against each other, alternating, in one run:
``python benchmarks/ab.py --before ../base --after .``.

Each measurement is a fresh process with its tree first on ``PYTHONPATH`` (so that tree's
``uno_env`` is imported, and numba's cache is that tree's own ``__pycache__``), the same
interpreter and the same virtual environment. A pair is one measurement of each tree,
taken one right after the other (the order flips from pair to pair): on a shared machine a
change in load moves both of a pair, so the ratio of each pair is the figure, and the
table shows every pair's ratio with their median.

The workloads (``--paths``) are single-game loops of uniform random legal actions drawn
with ``random.Random.randrange`` over ``ndarray.nonzero`` of the mask, at two players:

* ``gym``: :class:`uno_env.UnoGymEnv` with its default opponent (compiled ``random``),
  steps of the learner (``env.step`` calls) per second;
* ``aec``: ``uno_env.env`` (PettingZoo AEC with its wrappers), ``last()`` then ``step``,
  decisions per second;
* ``ppo``, ``ppo_seven_o``, ``ppo_all``: the compiled policy ``ppo`` at every seat of 16,384
  two-player hands (``UnoVectorEnv.play``, as ``uno bench``'s row), decisions per second, with
  every house rule off, Seven-O, and all of them: the network ``ppo`` plays there (a tree whose
  ``ppo`` knows the house rules plays its larger network under them).

Only what every tree of the project has since its first Gym wrapper is used, so that an
old commit can be the ``--before`` (``git worktree add ../base COMMIT``). This script runs
itself as the worker (``--worker``), importing nothing of the project at its top (so it lives
here, beside the asv benchmarks, not in the package: asv finds no benchmark in it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

PATHS = ("gym", "aec", "ppo", "ppo_seven_o", "ppo_all")
PPO_RULES = {"ppo": {}, "ppo_seven_o": {"seven_o": True}}
"""The settings of the ``ppo*`` paths (``ppo_all``: every house rule on)."""


# ---------------------------------------------------------------- the workloads (worker side)
def gym_loop(seconds: float, seed: int) -> tuple[int, float, float]:
    """(steps, wall seconds, CPU seconds) of the Gym wrapper's loop."""
    import random

    from uno_env import UnoGymEnv

    env = UnoGymEnv(num_players=2)
    chooser = random.Random(seed)
    episode = [seed]

    def run(limit: float) -> tuple[int, float, float]:
        steps = 0
        _, info = env.reset(seed=episode[0])
        start, cpu = time.perf_counter(), time.process_time()
        while True:
            for _ in range(200):
                legal = info["action_mask"].nonzero()[0]
                _, _, terminated, truncated, info = env.step(int(legal[chooser.randrange(len(legal))]))
                steps += 1
                if terminated or truncated:
                    episode[0] += 1
                    _, info = env.reset(seed=episode[0])
            elapsed = time.perf_counter() - start
            if elapsed >= limit:
                return steps, elapsed, time.process_time() - cpu

    run(min(seconds, 0.5))  # warm: caches loaded, buffers touched
    return run(seconds)


def aec_loop(seconds: float, seed: int) -> tuple[int, float, float]:
    """(decisions, wall seconds, CPU seconds) of the PettingZoo AEC env's loop."""
    import random

    import uno_env

    env = uno_env.env(num_players=2)
    chooser = random.Random(seed)
    episode = [seed]

    def run(limit: float) -> tuple[int, float, float]:
        steps = 0
        env.reset(seed=episode[0])
        start, cpu = time.perf_counter(), time.process_time()
        while True:
            for _ in range(200):
                if not env.agents:
                    episode[0] += 1
                    env.reset(seed=episode[0])
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = observation["action_mask"].nonzero()[0]
                env.step(int(legal[chooser.randrange(len(legal))]))
                steps += 1
            elapsed = time.perf_counter() - start
            if elapsed >= limit:
                return steps, elapsed, time.process_time() - cpu

    run(min(seconds, 0.5))
    return run(seconds)


def ppo_loop(rules: dict, seconds: float, seed: int) -> tuple[int, float, float]:
    """(decisions, wall seconds, CPU seconds) of the compiled ``ppo`` at every seat of a batch."""
    from uno_env.vector import UnoVectorEnv

    env = UnoVectorEnv(16384, num_players=2, episode="round", seed=seed, **rules)
    policies = ["ppo", "ppo"]
    env.play(2, policies=policies)  # compile or load, warm

    def run(limit: float) -> tuple[int, float, float]:
        steps = 0
        start, cpu = time.perf_counter(), time.process_time()
        while True:
            steps += int(env.play(16, policies=policies)["decisions"].sum())
            elapsed = time.perf_counter() - start
            if elapsed >= limit:
                return steps, elapsed, time.process_time() - cpu

    run(min(seconds, 0.5))
    return run(seconds)


def worker(path: str, seconds: float, seed: int) -> None:
    here = Path(__file__).resolve().parent  # run as a script: its folder is no package root
    sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != here]
    import uno_env

    if path.startswith("ppo"):
        from uno_env.engine.config import house_rules_on

        rules = PPO_RULES.get(path, house_rules_on())
        steps, wall, cpu = ppo_loop(rules, seconds, seed)
    else:
        steps, wall, cpu = {"gym": gym_loop, "aec": aec_loop}[path](seconds, seed)
    print(json.dumps({"file": uno_env.__file__, "steps": steps, "wall": wall, "cpu": cpu}))


# ---------------------------------------------------------------- the driver
def measure(tree: Path, path: str, seconds: float, seed: int) -> dict:
    """One measurement of ``path`` in a fresh process importing ``tree``'s uno_env."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]).rstrip(":"))
    environ.pop("NUMBA_CACHE_DIR", None)  # each tree's cache next to its own sources
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", path, "--seconds", str(seconds)]
    command += ["--seed", str(seed)]
    done = subprocess.run(command, env=environ, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{path} in {tree} failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    expected = (tree / "uno_env" / "__init__.py").resolve()
    if Path(result["file"]).resolve() != expected:
        raise RuntimeError(f"{tree}: imported {result['file']}, not {expected}")
    result["rate"] = result["steps"] / result["wall"]
    result["cpu_rate"] = result["steps"] / max(result["cpu"], 1e-9)
    return result


def compare(before: Path, after: Path, paths: list[str], pairs: int, seconds: float, seed: int) -> dict:
    """Every pair of every path: the rates of both trees and their ratio (after / before)."""
    for tree in (before, after):  # compile or load each tree's cache outside the timing
        for path in paths:
            measure(tree, path, 0.1, seed)
    table: dict[str, list] = {path: [] for path in paths}
    for k in range(pairs):
        for path in paths:
            order = [("before", before), ("after", after)]
            if k % 2:
                order.reverse()
            pair = {name: measure(tree, path, seconds, seed) for name, tree in order}
            pair["ratio"] = pair["after"]["rate"] / pair["before"]["rate"]
            pair["cpu_ratio"] = pair["after"]["cpu_rate"] / pair["before"]["cpu_rate"]
            table[path].append(pair)
            print(
                f"  {path} pair {k + 1}: before {pair['before']['rate'] / 1e3:.1f}k/s, "
                f"after {pair['after']['rate'] / 1e3:.1f}k/s, after/before {pair['ratio']:.2f}x "
                f"(per CPU second {pair['cpu_ratio']:.2f}x)",
                flush=True,
            )
    return table


def report(table: dict, before: Path, after: Path) -> str:
    lines = [
        f"before: {before}   after: {after}   load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        "| path | before (k steps/s, each pair) | after | after / before, each pair | median |",
        "|---|---|---|---|---|",
    ]
    for path, pairs in table.items():
        rates = [", ".join(f"{p[side]['rate'] / 1e3:.1f}" for p in pairs) for side in ("before", "after")]
        ratios = [p["ratio"] for p in pairs]
        lines.append(
            f"| {path} | {rates[0]} | {rates[1]} | {', '.join(f'{r:.2f}x' for r in ratios)} | "
            f"**{statistics.median(ratios):.2f}x** |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/ab.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, help="the tree measured first in the first pair (e.g. an old commit)")
    parser.add_argument("--after", type=Path, default=Path("."), help="the other tree (default: .)")
    parser.add_argument("--paths", default=",".join(PATHS), help=f"comma-separated, of {', '.join(PATHS)}")
    parser.add_argument("--pairs", type=int, default=3, help="alternating pairs per path (default 3)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="also write every measurement to this JSON file")
    parser.add_argument("--worker", choices=PATHS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker, args.seconds, args.seed)
        return 0
    if args.before is None:
        parser.error("--before is required (a tree with uno_env/ in it)")
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    for path in paths:
        if path not in PATHS:
            parser.error(f"--paths: unknown path {path!r}; known: {', '.join(PATHS)}")
    before, after = args.before.resolve(), args.after.resolve()
    for tree in (before, after):
        if not (tree / "uno_env" / "__init__.py").is_file():
            parser.error(f"{tree} has no uno_env/ package")
    table = compare(before, after, paths, args.pairs, args.seconds, args.seed)
    print(report(table, before, after))
    if args.out is not None:
        args.out.write_text(json.dumps({"before": str(before), "after": str(after), "pairs": table}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
