"""What Ray costs and buys on one machine: the figures of docs/SCALE.md, measured in one run.

    python -m uno_env.bench.scale                     # both parts, this machine's CPUs
    python -m uno_env.bench.scale --part tournament --cpus 16 --games 200000

a. RLlib (``uno_env/training/rllib.py``'s config): env steps/s and iterations/s with
   0, 1 and 2 remote env runners (``--runners``), and the memory (RSS) of every Ray
   process of the run at its end.
b. The tournament: hands/s of the local runner (one compiled call on every core for
   compiled agents; ``--workers`` processes for Python agents) against ``--ray`` with
   1 and 2 (``--ray-workers``) tasks in flight, for compiled agents (``keeper`` vs
   ``tactical``) and a Python agent (``ismcts`` with a small budget). The results of
   every run are checked equal, game by game, to the local run's.

Output: a markdown table on screen and ``bench_scale.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from uno_env.arena import RECORD_FIELDS, run_tournament
from uno_env.arena.distributed import start_ray
from uno_env.engine import RuleConfig
from uno_env.training import rllib as train_rllib
from uno_env.training.rules import make_game


def ray_memory_mb() -> float:
    """Resident memory of this process and every Ray process on the machine (MB)."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if int(pid) != os.getpid() and "ray" not in cmd:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            continue
    return total / 1024


def bench_rllib(runners: list[int], iterations: int, cpus: int) -> list[dict]:
    import ray  # optional: the scale extra

    rows = []
    for count in runners:
        args = train_rllib.Args(num_env_runners=count, num_cpus=cpus, progress=False)
        game = make_game(args)
        train_rllib.start_ray(args)
        algo = train_rllib.build_config(args, game).build_algo()
        algo.train()  # the first iteration builds and compiles
        start = time.perf_counter()
        steps = 0
        for _ in range(iterations):
            result = algo.train()
            steps += int(result["env_runners"].get("num_env_steps_sampled", 0))
        elapsed = time.perf_counter() - start
        memory = ray_memory_mb()
        algo.stop()
        ray.shutdown()
        rows.append(
            {
                "env_runners": count,
                "env_steps_per_s": steps / elapsed,
                "iterations_per_s": iterations / elapsed,
                "train_batch": args.train_batch,
                "memory_mb": memory,
            }
        )
        print(rows[-1], file=sys.stderr)
    return rows


def bench_tournament(games: int, python_games: int, workers: list[int], cpus: int) -> list[dict]:
    config = RuleConfig(num_players=2, episode="round")
    cases = [
        ("compiled", ["keeper", "tactical"], games),
        ("python", ["tactical", "ismcts:determinizations=4"], python_games),
    ]
    rows = []
    for kind, agents, count in cases:
        run_tournament(agents, config, games=max(2, count // 50), seed=1, workers=1, bootstrap=0)  # compile, cache
        reference: dict | None = None
        for backend, w in [("local", 1), ("local", 2)] + [("ray", w) for w in workers]:
            if backend == "local" and kind == "compiled" and w == 2:
                continue  # compiled tables run in one call on every core; --workers does not apply
            records, elapsed = timed_tournament(agents, config, count, w, cpus if backend == "ray" else None)
            same = None if reference is None else same_games(reference, records)
            reference = reference if reference is not None else records
            rows.append(
                {
                    "agents": kind,
                    "backend": backend,
                    "workers": w,
                    "hands": len(records["steps"]),
                    "hands_per_s": len(records["steps"]) / elapsed,
                    "same_results": same,
                }
            )
            print(rows[-1], file=sys.stderr)
    return rows


def same_games(a: dict, b: dict) -> bool:
    """The two tournaments' records are game by game the same (their timings aside)."""
    return all(np.array_equal(a[k], b[k]) for k in RECORD_FIELDS if k not in ("seconds", "agent_seconds"))


def timed_tournament(agents: list[str], config, games: int, workers: int, ray_cpus: int | None) -> tuple[dict, float]:
    """The records of one seeded tournament and its seconds: local, or on a local Ray of
    ``ray_cpus`` CPUs (started for it and shut down after)."""
    if ray_cpus is not None:
        start_ray("local", ray_cpus)
    start = time.perf_counter()
    ray_address = "local" if ray_cpus is not None else None
    _, _, _, records = run_tournament(
        agents, config, games=games, seed=1, workers=workers, bootstrap=0, ray=ray_address
    )
    elapsed = time.perf_counter() - start
    if ray_cpus is not None:
        import ray  # optional: the scale extra (start_ray needed it)

        ray.shutdown()
    return records, elapsed


def markdown(report: dict) -> str:
    lines = []
    if report.get("rllib"):
        lines += ["| env runners | env steps/s | iterations/s | memory of Ray (MB) |", "|---|---|---|---|"]
        for r in report["rllib"]:
            lines.append(
                f"| {r['env_runners']} | {r['env_steps_per_s']:,.0f} | {r['iterations_per_s']:.3f} "
                f"| {r['memory_mb']:,.0f} |"
            )
        lines.append("")
    if report.get("tournament"):
        lines += ["| agents | runner | workers | hands | hands/s | same games as local |", "|---|---|---|---|---|---|"]
        for r in report["tournament"]:
            same = "reference" if r["same_results"] is None else ("yes" if r["same_results"] else "NO")
            lines.append(
                f"| {r['agents']} | {r['backend']} | {r['workers']} | {r['hands']:,} "
                f"| {r['hands_per_s']:,.0f} | {same} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m uno_env.bench.scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("all", "rllib", "tournament"), default="all")
    parser.add_argument("--cpus", type=int, default=os.cpu_count(), help="CPUs of the local Ray (default: all)")
    parser.add_argument("--runners", default="0,1,2", help="RLlib env runner counts, comma-separated")
    parser.add_argument("--iterations", type=int, default=3, help="timed RLlib iterations per runner count")
    parser.add_argument("--games", type=int, default=100_000, help="hands of the compiled tournament")
    parser.add_argument("--python-games", type=int, default=400, help="hands of the tournament with ismcts")
    parser.add_argument("--ray-workers", default="1,2", help="Ray tasks in flight, comma-separated")
    parser.add_argument("--out", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    report: dict = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs",
        "cpus": args.cpus,
    }
    if args.part in ("all", "rllib"):
        runners = [int(x) for x in args.runners.split(",")]
        report["rllib"] = bench_rllib(runners, args.iterations, args.cpus)
    if args.part in ("all", "tournament"):
        workers = [int(x) for x in args.ray_workers.split(",")]
        report["tournament"] = bench_tournament(args.games, args.python_games, workers, args.cpus)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_scale.json").write_text(json.dumps(report, indent=2))
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
