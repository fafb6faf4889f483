"""Speed of the UNO envs against RLCard's, measured in one run (``uno bench``).

Random legal play, measured as decisions (``env.step`` calls) per second and
episodes per second, for:

a. RLCard's UNO env (``rlcard.make("uno")``, random legal actions via ``env.step``),
   the peer every ratio is taken against; skipped with a note without rlcard
   (``pip install "uno-env[bench]"``, in a clone ``pip install -e ".[bench]"``);
b. our PettingZoo AEC env with its full observation and mask (``uno_env.env``);
g. the Gymnasium wrapper (:class:`uno_env.UnoGymEnv`, compiled ``random`` opponents): the
   learner's steps, each with its observation and its info's mask;
c. the single-game engine API (``Game``: mask, step, observation of the next seat);
d. the vector env (:class:`uno_env.vector.UnoVectorEnv`) at each batch size, serial
   and parallel, each step returning every game's observation and mask (the random
   actions come from a compiled sampler over the returned masks);
e. compiled policies playing inside the kernel (every seat, with autoreset):
   random, each heuristic of :data:`uno_env.agents.policies.POLICY_IDS`, ``play_batch``,
   and the one-learner adapter's path (opponents inside the kernel).

(a), (b), (g) and (c) take turns, repeat by repeat, so that a change in the load of the
shared machine moves them together rather than their ratios. Plus bytes of state
per game, and the start-up time of a fresh process with a
fresh numba cache (compilation) and again with that cache. Every figure is the
median of ``--repeats`` runs, with the spread; on a shared machine the spread
matters. Our episodes default to ``episode="round"`` (one hand), the unit of an
RLCard game.

Output: a table on screen, ``bench_speed.json`` and ``bench_speed.png`` in ``--out``.

This file is the command; what it measures is :mod:`uno_env.bench.measurements`, the
targets :mod:`uno_env.bench.targets`, the table and plot :mod:`uno_env.bench.report`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numba
import numpy as np

from uno_env.agents import policies as policy_kernels
from uno_env.cli.args import (
    MAX_SECONDS,
    check_memory,
    check_output_folder,
    count_type,
    duration_type,
    players_type,
    seed_type,
)
from uno_env.vector import PARALLEL_THRESHOLD

from .measurements import (
    bench_play,
    bench_play_batch,
    bench_startup,
    bench_vector,
    game_chunk,
    gym_chunk,
    measure_interleaved,
    pettingzoo_chunk,
    rlcard_chunk,
    state_bytes,
)
from .report import fmt_rate, plot, summary_lines, table
from .targets import targets

MAX_REPEATS = 1000
"""The most measurements per figure (``--repeats``)."""
BYTES_PER_GAME = 2048
"""About the bytes a vector env or a compiled batch holds per game and per seat, plus one
(the state, events, observation and final-observation buffers: about 5.5 KB a game at 2
players, 20 KB at 10); ``--sizes`` and ``--play-size`` are checked against the memory."""


# ---------------------------------------------------------------- main
def parse_args(argv):
    parser = argparse.ArgumentParser(prog="uno bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("results"), help="output folder (default: results/)")
    parser.add_argument(
        "--seconds",
        type=duration_type(),
        default=1.5,
        help=f"seconds per measurement (default 1.5, at most {MAX_SECONDS:g})",
    )
    parser.add_argument(
        "--repeats", type=count_type(1, MAX_REPEATS), default=3, help="measurements per figure; median and spread"
    )
    parser.add_argument("--sizes", default="1,64,1024,16384,65536", help="vector env batch sizes")
    parser.add_argument(
        "--play-size", type=count_type(1, 2**31 - 1), default=16384, help="games per batch for compiled policies"
    )
    parser.add_argument(
        "--play-decisions",
        type=count_type(1, 2**31 - 1),
        default=64,
        help="decisions per game per play() call",
    )
    parser.add_argument("--players", type=players_type, default=2, help="players at the table, 2..10 (default 2)")
    parser.add_argument("--episode", choices=("round", "game"), default="round", help="our episode (default: a hand)")
    parser.add_argument("--seed", type=seed_type, default=0)
    parser.add_argument(
        "--startup", choices=("serial", "full", "skip"), default="full", help="start-up timing in fresh processes"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes and durations (for the test suite)")
    args = parser.parse_args(argv)
    if args.quick:
        args.seconds = min(args.seconds, 0.05)
        args.repeats = 1
        args.sizes = "1,64"
        args.play_size = 64
        args.play_decisions = 8
        args.startup = "skip"
    try:
        args.size_list = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error(f"--sizes must be integers separated by commas, got {args.sizes!r}")
    if not args.size_list or min(args.size_list) < 1:
        parser.error(f"--sizes must be positive, got {args.sizes!r}")
    try:
        for option, size in [("--sizes", max(args.size_list)), ("--play-size", args.play_size)]:
            check_memory(option, size, BYTES_PER_GAME * (args.players + 1), "game")
        check_output_folder("--out", args.out)
    except ValueError as err:
        parser.error(str(err))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    rows, vector = measure_all(args)
    say("state bytes, start-up ...")
    report = make_report(args, rows, vector)
    report["startup"] = bench_startup(args) if args.startup != "skip" else {"skipped": "--startup skip / --quick"}
    report["targets"] = targets(report)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_speed.json").write_text(json.dumps(report, indent=2))
    plot(report, args.out / "bench_speed.png")

    say("")
    say(report["title"])
    say(table(rows, report["reference_steps_per_s"], report["reference_steps_per_cpu_s"]))
    say(
        "steps/cpu-s: per second of this process's CPU time (both threads of a parallel row); "
        f"load average {report['machine']['load_average']}"
    )
    say("")
    for line in summary_lines(report, args.players):
        say(line)
    say(f"\nwrote {args.out / 'bench_speed.json'} and {args.out / 'bench_speed.png'}")
    return 0


def say(text: str) -> None:
    print(text, flush=True)


class Rows:
    """The rows of the table as they are measured (each said on screen), and the vector env's
    rate per batch size and mode (for the plot)."""

    def __init__(self) -> None:
        self.rows: list[dict] = []
        self.vector: list[dict] = []

    def add(self, group: str, name: str, result: dict, **extra) -> dict:
        result = dict(result, group=group, name=name, **extra)
        self.rows.append(result)
        if "skipped" in result:
            say(f"  {name}: skipped ({result['skipped']})")
        else:
            say(f"  {name}: {fmt_rate(result['steps_per_s'])} steps/s")
        return result


def measure_all(args) -> tuple[list[dict], list[dict]]:
    """The rows of the table, (a) to (e), and the vector env's rate per batch size and mode."""
    rows = Rows()
    say("measuring (a) RLCard, (b) PettingZoo env, (g) Gym wrapper, (c) Game, taking turns ...")
    measure_peers(args, rows)
    say("measuring (d) vector env ...")
    for size in args.size_list:
        modes = [False] + ([True] if size >= 64 and numba.get_num_threads() > 1 else [])
        for parallel in modes:
            mode = "parallel" if parallel else "serial"
            result = rows.add("d", f"(d) UnoVectorEnv N={size} {mode}", bench_vector(args, size, parallel))
            rows.vector.append({"num_envs": size, "mode": mode, "steps_per_s": result["steps_per_s"]})
    size = max(args.size_list[-1], 1)
    learner = bench_vector(args, min(size, args.play_size), "auto", seats=[None] + ["random"] * (args.players - 1))
    rows.add("d", f"(d) learner adapter path N={learner['num_envs']} (learner decisions)", learner, seats="learner")
    say("measuring (e) compiled policies inside the kernel ...")
    for name in policy_kernels.POLICY_IDS:
        result = bench_play(args, name, args.play_size)
        rows.add("e", f"(e) play() all seats {name!r} N={args.play_size}", result, policy=name)
    rows.add("e", f"(e) policies.play_batch random N={args.play_size}", bench_play_batch(args, args.play_size))
    return rows.rows, rows.vector


def measure_peers(args, rows: Rows) -> None:
    """(a) RLCard (or why it is skipped), (b) the PettingZoo env, (g) the Gym wrapper and (c) ``Game``,
    taking turns."""
    made = {"a": rlcard_chunk(args), "b": pettingzoo_chunk(args), "g": gym_chunk(args), "c": game_chunk(args)}
    ready = {group: m[0] for group, m in made.items() if not isinstance(m, dict)}
    together = measure_interleaved(ready, args.seconds, args.repeats)
    names = {
        "a": "(a) RLCard uno env.step",
        "b": f"(b) uno_env.env (PettingZoo AEC, {args.players}p)",
        "g": f"(g) UnoGymEnv (Gymnasium, {args.players}p, learner steps)",
        "c": "(c) Game single-game API",
    }
    for group, m in made.items():
        rows.add(group, names[group], m if isinstance(m, dict) else dict(together[group], note=m[1]))


def make_report(args, rows: list[dict], vector: list[dict]) -> dict[str, Any]:
    """The report of the measurements (``bench_speed.json``), before start-up and targets:
    the machine, the settings, the reference (RLCard's rates), the rows and the state per game."""
    reference = rows[0].get("steps_per_s") if "skipped" not in rows[0] else None
    cpu_reference = rows[0].get("steps_per_cpu_s") if "skipped" not in rows[0] else None
    return {
        "title": (
            f"uno bench: {args.players} players, episode={args.episode}, {os.cpu_count()} cpus, "
            f"numba {numba.__version__} ({numba.get_num_threads()} threads)"
        ),
        "machine": {
            "cpus": os.cpu_count(),
            "numba_threads": numba.get_num_threads(),
            "threading_layer": _threading_layer(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "numba": numba.__version__,
            "platform": platform.platform(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
        },
        "settings": {
            "players": args.players,
            "episode": args.episode,
            "seconds": args.seconds,
            "repeats": args.repeats,
            "sizes": args.size_list,
            "play_size": args.play_size,
            "parallel_threshold": PARALLEL_THRESHOLD,
            "quick": args.quick,
        },
        "reference_steps_per_s": reference,
        "reference_steps_per_cpu_s": cpu_reference,
        "rows": rows,
        "vector": vector,
        "state_bytes": {str(k): v for k, v in state_bytes(args).items()},
    }


def _threading_layer() -> str | None:
    try:
        return numba.threading_layer()
    except Exception:  # only known once a parallel kernel ran
        return None


if __name__ == "__main__":
    sys.exit(main())
