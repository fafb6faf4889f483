"""Speed of the UNO envs against RLCard's, measured in one run (``uno bench``).

Random legal play, measured as decisions (``env.step`` calls) per second and
episodes per second, for:

a. RLCard's UNO env (``rlcard.make("uno")``, random legal actions via ``env.step``),
   the peer every ratio is taken against; skipped with a note without rlcard
   (``pip install "uno-env[bench]"``, in a clone ``pip install -e ".[bench]"``);
b. our PettingZoo AEC env with its full observation and mask (``uno_env.env``);
c. the single-game engine API (``Game``: mask, step, observation of the next seat);
d. the vector env (:class:`uno_env.vector.UnoVectorEnv`) at each batch size, serial
   and parallel, each step returning every game's observation and mask (the random
   actions come from a compiled sampler over the returned masks);
e. compiled policies playing inside the kernel (every seat, with autoreset):
   random, each heuristic of :data:`uno_env.agents.policies.POLICY_IDS`, ``play_batch``,
   and the one-learner adapter's path (opponents inside the kernel).

(a), (b) and (c) take turns, repeat by repeat, so that a change in the load of the
shared machine moves them together rather than their ratios. Plus bytes of state
per game, and the start-up time of a fresh process with a
fresh numba cache (compilation) and again with that cache. Every figure is the
median of ``--repeats`` runs, with the spread; on a shared machine the spread
matters. Our episodes default to ``episode="round"`` (one hand), the unit of an
RLCard game.

Output: a table on screen, ``bench_speed.json`` and ``bench_speed.png`` in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from uno_env.cli.args import (
    MAX_SECONDS,
    check_memory,
    check_output_folder,
    count_type,
    duration_type,
    players_type,
    seed_type,
)

MAX_REPEATS = 1000
"""The most measurements per figure (``--repeats``)."""
BYTES_PER_GAME = 2048
"""About the bytes a vector env or a compiled batch holds per game and per seat, plus one
(the state, events, observation and final-observation buffers: about 5.5 KB a game at 2
players, 20 KB at 10); ``--sizes`` and ``--play-size`` are checked against the memory."""

TARGETS = {  # the speed issues' targets (the second round's where it raised them)
    "pettingzoo_ratio": 5.0,
    "vector_ratio": 100.0,  # at every N >= 1024
    "vector_growth": 0.95,  # throughput at each N over the one at the size before: does not fall (5% noise)
    "kernel_policy_ratio": 200.0,  # random at every seat
    "kernel_tactical_ratio": 50.0,
    "state_bytes": 1024,
    "cold_start_s": 30.0,
    "cached_start_s": 2.0,
    "first_step_s": 20.0,  # a newcomer's env.reset + first step, empty cache
    "first_use_s": 20.0,  # a newcomer's first env step and the demo's tournament, empty cache
    "first_use_after_warm_s": 20.0,  # the same after make's install step (uno warm)
    "heuristic_hands_per_s": 100_000,
}


# ---------------------------------------------------------------- timing
def measure(run_chunk, seconds: float, repeats: int) -> dict:
    """Call ``run_chunk() -> (decisions, episodes)`` until ``seconds`` passed, ``repeats``
    times; rates per second of wall time as median, min and max over the repeats, and
    per second of CPU time of this process (all its threads): on a shared machine the
    wall rate drops when other processes take the cores, the CPU rate much less."""
    return measure_interleaved({"only": run_chunk}, seconds, repeats)["only"]


def measure_interleaved(chunks: dict, seconds: float, repeats: int) -> dict[str, dict]:
    """:func:`measure` for several chunks at once, taking turns: repeat k of each is
    measured right after repeat k of the one before, so a change in the machine's load
    moves all of them rather than the ratio between them."""
    stats: dict[str, dict[str, Any]] = {
        name: {"rates": [], "cpu": [], "episodes": [], "decisions": 0, "episode_total": 0} for name in chunks
    }
    for run_chunk in chunks.values():
        run_chunk()  # warm-up: first calls compile or fill caches
    for _ in range(repeats):
        for name, run_chunk in chunks.items():
            decisions = episodes = 0
            start = time.perf_counter()
            cpu_start = time.process_time()
            while True:
                d, e = run_chunk()
                decisions += d
                episodes += e
                elapsed = time.perf_counter() - start
                if elapsed >= seconds:
                    break
            cpu = max(time.process_time() - cpu_start, 1e-9)
            record = stats[name]
            record["rates"].append(decisions / elapsed)
            record["cpu"].append(decisions / cpu)
            record["episodes"].append(episodes / elapsed)
            record["decisions"] += decisions
            record["episode_total"] += episodes
    return {
        name: {
            "steps_per_cpu_s": float(np.median(r["cpu"])),
            "steps_per_s": float(np.median(r["rates"])),
            "steps_per_s_min": float(min(r["rates"])),
            "steps_per_s_max": float(max(r["rates"])),
            "episodes_per_s": float(np.median(r["episodes"])),
            "steps_per_episode": r["decisions"] / r["episode_total"] if r["episode_total"] else None,
        }
        for name, r in stats.items()
    }


# ---------------------------------------------------------------- (a) RLCard
def rlcard_chunk(args):
    """(chunk, note) of RLCard's env, or a skip note without rlcard."""
    try:
        import rlcard
    except ImportError as error:
        return {"skipped": f'rlcard is not installed ({error}); pip install "uno-env[bench]"'}
    env = rlcard.make("uno", config={"seed": args.seed})
    chooser = random.Random(args.seed)
    holder = {"state": env.reset()[0]}

    def chunk():
        decisions = episodes = 0
        for _ in range(200):
            state = holder["state"]
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[chooser.randrange(len(legal))])
            decisions += 1
            if env.is_over():
                episodes += 1
                state, _ = env.reset()
            holder["state"] = state
        return decisions, episodes

    return chunk, f"rlcard {getattr(rlcard, '__version__', '?')}, 2 players, random legal actions via env.step"


# ---------------------------------------------------------------- (b) PettingZoo
def pettingzoo_chunk(args):
    """(chunk, note) of the PettingZoo env."""
    try:
        import uno_env

        make = uno_env.env
    except (ImportError, AttributeError) as error:
        return {"skipped": f"uno_env.env is not available yet ({error})"}
    env = make(num_players=args.players, episode=args.episode)
    chooser = random.Random(args.seed)
    seed = [args.seed]
    env.reset(seed=seed[0])

    def chunk():
        decisions = episodes = 0
        for _ in range(200):
            if not env.agents:
                episodes += 1
                seed[0] += 1
                env.reset(seed=seed[0])
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            # ndarray.nonzero, not np.flatnonzero: the same ids, but np.flatnonzero's Python
            # wrappers (ravel, asanyarray) cost 1.7 us of the driver's time at every step
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[chooser.randrange(len(legal))]))
            decisions += 1
        return decisions, episodes

    return chunk, "uno_env.env (AEC, OrderEnforcing wrappers): last() with observation and mask, then step"


# ---------------------------------------------------------------- (c) Game
def game_chunk(args):
    """(chunk, note) of the single-game API."""
    from uno_env.engine import Game

    game = Game(num_players=args.players, episode=args.episode)
    state = game.init(seed=args.seed)
    chooser = random.Random(args.seed)

    def chunk():
        decisions = episodes = 0
        for _ in range(200):
            if game.is_over(state):
                episodes += 1
                game.reset(state)
            legal = game.legal_actions(state)
            game.step(state, legal[chooser.randrange(len(legal))])
            if not game.is_over(state):
                game.observe(state, game.current_player(state))
            decisions += 1
        return decisions, episodes

    return chunk, "Game: legal_actions, step (with its events), observe of the next seat"


# ---------------------------------------------------------------- (d) vector env
def bench_vector(args, size: int, parallel, seats=None) -> dict:
    """Steps of the vector env with random legal actions for the caller's seats; with compiled
    seats (the learner adapter's path) ``all_decisions_per_s`` also counts theirs."""
    from uno_env.engine.layout import S_STEP
    from uno_env.vector import UnoVectorEnv

    env = UnoVectorEnv(
        size, num_players=args.players, episode=args.episode, seats=seats, parallel=parallel, seed=args.seed
    )
    for _ in range(3):  # warm: compiled, buffers touched
        env.step(env.sample_actions())
    all_decisions = [0]

    def chunk():
        before = env.ints[:, S_STEP].astype(np.int64) if seats is not None else None
        step = env.step(env.sample_actions())
        done = step.terminated | step.truncated
        if seats is not None:
            after = env.ints[:, S_STEP].astype(np.int64)
            all_decisions[0] += int(np.where(done, step.info["final_steps"] - before + after, after - before).sum())
        return size, int(np.count_nonzero(done))

    start = time.perf_counter()
    result = measure(chunk, args.seconds, args.repeats)
    if seats is not None:
        result["all_decisions_per_s"] = all_decisions[0] / (time.perf_counter() - start)
    result["parallel"] = env.parallel
    result["num_envs"] = size
    return result


# ---------------------------------------------------------------- (e) compiled policies
def bench_play(args, policy: str, size: int) -> dict:
    from uno_env.vector import UnoVectorEnv

    env = UnoVectorEnv(size, num_players=args.players, episode=args.episode, seed=args.seed)
    policies = [policy] * env.num_players
    env.play(2, policies=policies)  # compile and warm
    per_call = max(1, args.play_decisions)

    def chunk():
        out = env.play(per_call, policies=policies)
        return int(out["decisions"].sum()), int(out["episodes"].sum())

    result = measure(chunk, args.seconds, args.repeats)
    result["parallel"] = env.parallel
    result["num_envs"] = size
    result["note"] = f"UnoVectorEnv.play: every seat {policy!r}, {per_call} decisions per game per call, autoreset"
    return result


def bench_play_batch(args, size: int) -> dict:
    """The existing ``policies.play_batch``: whole hands, observe + mask + policy every decision."""
    from uno_env.agents import policies as policy_kernels
    from uno_env.engine import Game
    from uno_env.engine.seeding import policy_seeds, seeds_to_rng

    game = Game(num_players=args.players, episode=args.episode)
    seat_policies = np.zeros((size, game.num_players), dtype=np.int64)
    counter = [args.seed]

    def chunk():
        state = game.new_state(size, events=False)
        state.rng[:] = seeds_to_rng(counter[0], size)
        counter[0] += size
        from uno_env.engine import kernels as K

        K.reset_batch(state.cards, state.ints, state.rng, game.params, np.full(size, -1, np.int64), state.ev, state.evn)
        prng = policy_seeds(state.rng.copy())
        rewards = np.zeros((size, game.num_players), dtype=np.float32)
        steps = np.zeros(size, dtype=np.int64)
        policy_kernels.play_batch(
            state.cards, state.ints, state.rng, prng, game.params, seat_policies, True, 10**9, rewards, steps
        )
        return int(steps.sum()), size

    chunk()  # compile
    result = measure(chunk, args.seconds, args.repeats)
    result["num_envs"] = size
    result["note"] = "policies.play_batch: whole hands, observe + mask + policy each decision (reset included)"
    return result


# ---------------------------------------------------------------- start-up
STARTUP_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import uno_env.vector as V
from uno_env.engine import Game
t_import = time.perf_counter() - t0
g = Game(num_players=2)
s = g.init(seed=1)
g.step(s, g.legal_actions(s)[0]); g.observe(s, 0)
t_game = time.perf_counter() - t0
env = V.UnoVectorEnv(64, num_players=2, parallel=False, seed=0)
env.step(env.sample_actions())
t_vector = time.perf_counter() - t0
stages = {"import": t_import, "game": t_game, "vector_serial": t_vector}
if "full" in sys.argv:
    env = V.UnoVectorEnv(64, num_players=2, parallel=True, seed=0)
    env.step(env.sample_actions())
    stages["vector_parallel"] = time.perf_counter() - t0
    env = V.UnoVectorEnv(64, num_players=2, parallel=False, seats=[None, "random"], seed=0)
    env.step(env.sample_actions())
    env.play(10)
    stages["policies_serial"] = time.perf_counter() - t0
from uno_env.engine.entry import ENGINE
if ENGINE.process is not None:  # the engine's background compilation (a cold Game): not timed
    ENGINE.process.kill()
print(json.dumps(stages))
"""

FIRST_USE_SCRIPT = r"""
import json, time
t0 = time.perf_counter()
import uno_env
env = uno_env.env(num_players=4)
env.reset(seed=0)
observation = env.last()[0]
env.step(int(observation["action_mask"].argmax()))
stages = {"env_first_step": time.perf_counter() - t0}
from uno_env.engine.entry import ENGINE
mode = ENGINE.mode
from uno_env.arena import run_tournament
from uno_env.cli.tournament import DEFAULT_AGENTS, DEFAULT_PLAYERS
from uno_env.engine import RuleConfig
agents = [a if a != "ismcts" else "ismcts:determinizations=8" for a in DEFAULT_AGENTS.split(",")]
config = RuleConfig(num_players=DEFAULT_PLAYERS, episode="round")
run_tournament(agents, config, 1, workers=1, bootstrap=0)
stages["demo_tournament"] = time.perf_counter() - t0
stages["engine_mode_at_first_step"] = mode
if ENGINE.process is not None:  # still compiling the engine in the background: not timed
    ENGINE.process.kill()
print(json.dumps(stages))
"""
"""A newcomer's first use in a fresh process with an empty cache: the PettingZoo env's
reset and first step, then the demo's tournament (``uno tournament``'s agents and
tables; one game per seating and a small search budget, as the compilation is what
counts)."""


def fresh_process(script: str, environ: dict, *argv: str) -> dict:
    """Wall time and the stages a script prints (JSON, last line), or the error."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], env=environ, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return {"wall_s": wall, "stages_s": json.loads(done.stdout.strip().splitlines()[-1])}


def bench_startup(args) -> dict:
    """Fresh processes: one with an empty numba cache (everything compiles), one with that
    cache; with ``--startup full`` also a newcomer's first use (:data:`FIRST_USE_SCRIPT`)
    with another empty cache."""
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="uno-numba-cache-") as cache:
        environ = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("cold", "cached"):
            results[label] = fresh_process(STARTUP_SCRIPT, environ, *(["full"] if args.startup == "full" else []))
    if args.startup == "full":
        with tempfile.TemporaryDirectory(prefix="uno-numba-cache-") as cache:
            results["first_use"] = fresh_process(FIRST_USE_SCRIPT, dict(os.environ, NUMBA_CACHE_DIR=cache))
        with tempfile.TemporaryDirectory(prefix="uno-numba-cache-") as cache:
            environ = dict(os.environ, NUMBA_CACHE_DIR=cache)
            start = time.perf_counter()
            warm = subprocess.run(
                [sys.executable, "-m", "uno_env.cli.warm", "--jobs", "2", "--quiet"], env=environ, check=False
            )
            results["warm"] = {"wall_s": time.perf_counter() - start, "returncode": warm.returncode}
            results["first_use_after_warm"] = fresh_process(FIRST_USE_SCRIPT, environ)
    return results


# ---------------------------------------------------------------- report
def state_bytes(args) -> dict:
    from uno_env.engine import Game
    from uno_env.vector import UnoVectorEnv

    out = {}
    for players in sorted({2, args.players, 4, 10}):
        game = Game(num_players=players)
        env = UnoVectorEnv(1, num_players=players)
        out[players] = {
            "engine_state": game.new_state(8).nbytes_per_game(),
            "vector_env": env.nbytes_per_game,
            "observation": env.obs.nbytes,
            "mask": env.mask.nbytes,
            "final_observations": env.final_obs.nbytes,
        }
    return out


def fmt_rate(value) -> str:
    if value is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.2f}{unit}"
    return f"{value:.1f}"


def table(rows: list[dict], reference, cpu_reference=None) -> str:
    head = (
        f"{'what':54s} {'steps/s':>9s} {'spread':>17s} {'eps/s':>9s} {'steps/ep':>8s} {'x RLCard':>9s}"
        f" {'steps/cpu-s':>11s} {'x (cpu)':>8s}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        if "skipped" in row:
            lines.append(f"{row['name']:54s} skipped: {row['skipped']}")
            continue
        spread = f"{fmt_rate(row['steps_per_s_min'])}..{fmt_rate(row['steps_per_s_max'])}"
        ratio = f"{row['steps_per_s'] / reference:.1f}" if reference else "-"
        per_ep = f"{row['steps_per_episode']:.0f}" if row.get("steps_per_episode") else "-"
        cpu = row.get("steps_per_cpu_s")
        cpu_ratio = f"{cpu / cpu_reference:.1f}" if cpu and cpu_reference else "-"
        lines.append(
            f"{row['name']:54s} {fmt_rate(row['steps_per_s']):>9s} {spread:>17s} "
            f"{fmt_rate(row['episodes_per_s']):>9s} {per_ep:>8s} {ratio:>9s} {fmt_rate(cpu):>11s} {cpu_ratio:>8s}"
        )
    return "\n".join(lines)


def plot(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in report["rows"] if "skipped" not in r]
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6), gridspec_kw={"width_ratios": [3, 2]})
    names = [r["name"] for r in rows]
    values = [r["steps_per_s"] for r in rows]
    errors = np.array(
        [
            [r["steps_per_s"] - r["steps_per_s_min"] for r in rows],
            [r["steps_per_s_max"] - r["steps_per_s"] for r in rows],
        ]
    )
    y = np.arange(len(rows))
    left.barh(y, values, xerr=errors, color=["#c44" if r["group"] == "a" else "#48a" for r in rows])
    left.set_yticks(y, names, fontsize=7)
    left.invert_yaxis()
    left.set_xscale("log")
    left.set_xlabel("decisions per second (log)")
    reference = report.get("reference_steps_per_s")
    if reference:
        for k, value in enumerate(values):
            left.text(value, k, f"  {value / reference:.0f}x", va="center", fontsize=7)
    left.set_title("random legal play (median, bars: min..max)")
    for mode, style in (("serial", "o-"), ("parallel", "s--")):
        points = [(r["num_envs"], r["steps_per_s"]) for r in report["vector"] if r["mode"] == mode]
        if points:
            right.plot(*zip(*points), style, label=mode)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("games per batch (N)")
    right.set_ylabel("decisions per second")
    right.set_title("vector env (observation + mask per step)")
    right.legend()
    fig.suptitle(report["title"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def targets(report: dict) -> list[dict]:
    reference = report.get("reference_steps_per_s")
    by_group: dict[str, list[dict]] = {}
    for row in report["rows"]:
        if "skipped" not in row:
            by_group.setdefault(row["group"], []).append(row)
    out = []

    cpu_reference = report.get("reference_steps_per_cpu_s")

    def add(name, value, goal, better="higher", unit="", cpu_value=None):
        if value is None:
            out.append({"target": name, "goal": goal, "value": None, "met": None})
            return
        met = value >= goal if better == "higher" else value <= goal
        out.append(
            {"target": name, "goal": goal, "value": value, "met": bool(met), "unit": unit, "cpu_value": cpu_value}
        )

    def ratio(group, pick=lambda r: True, key="steps_per_s", ref=None):
        ref = reference if ref is None else ref
        rows = [r for r in by_group.get(group, []) if pick(r) and r.get(key)]
        if not rows or not ref:
            return None
        return max(r[key] for r in rows) / ref

    def cpu_ratio(group, pick=lambda r: True):
        return ratio(group, pick, "steps_per_cpu_s", cpu_reference) if cpu_reference else None

    add("PettingZoo env steps/s vs RLCard", ratio("b"), TARGETS["pettingzoo_ratio"], unit="x", cpu_value=cpu_ratio("b"))

    def big_vector(r):
        return r.get("num_envs", 0) >= 1024 and r.get("seats") is None

    per_size: dict[int, float] = {}  # the best of serial and parallel at each N
    for r in by_group.get("d", []):
        if r.get("seats") is None and r.get("num_envs") and r.get("steps_per_s"):
            per_size[r["num_envs"]] = max(per_size.get(r["num_envs"], 0.0), r["steps_per_s"])
    big = {size: rate for size, rate in per_size.items() if size >= 1024}
    add(
        "vector env with observations vs RLCard, lowest over N >= 1024",
        min(big.values()) / reference if big and reference else None,
        TARGETS["vector_ratio"],
        unit="x",
        cpu_value=cpu_ratio("d", big_vector),
    )
    sizes = sorted(per_size)
    growth = [per_size[b] / per_size[a] for a, b in zip(sizes, sizes[1:]) if a >= 1024]
    add(
        "vector env throughput as N grows, lowest ratio to the size before",
        min(growth) if growth else None,
        TARGETS["vector_growth"],
        unit="x",
    )
    for policy, goal in (("random", "kernel_policy_ratio"), ("tactical", "kernel_tactical_ratio")):

        def played(r, policy=policy):
            return r.get("policy") == policy

        add(
            f"compiled {policy} policy in the kernel vs RLCard",
            ratio("e", played),
            TARGETS[goal],
            unit="x",
            cpu_value=cpu_ratio("e", played),
        )
    add(
        f"state bytes per game in the vector env ({report['settings']['players']} players)",
        report["state_bytes"][str(report["settings"]["players"])]["vector_env"],
        TARGETS["state_bytes"],
        better="lower",
        unit="B",
    )
    startup = report.get("startup", {})
    cold = startup.get("cold", {}).get("stages_s", {}).get("vector_serial")
    cached = startup.get("cached", {}).get("wall_s")
    add("first use with compilation (import + vector env step)", cold, TARGETS["cold_start_s"], "lower", "s")
    add("start with the cache (fresh process, wall)", cached, TARGETS["cached_start_s"], "lower", "s")
    first_use = startup.get("first_use", {}).get("stages_s", {})
    add(
        "first use, empty cache: env.reset + first step (the engine interpreted while it compiles)",
        first_use.get("env_first_step"),
        TARGETS["first_step_s"],
        "lower",
        "s",
    )
    add(
        "first use, empty cache: env.reset + first step, then the demo's tournament",
        first_use.get("demo_tournament"),
        TARGETS["first_use_s"],
        "lower",
        "s",
    )
    after_warm = startup.get("first_use_after_warm", {}).get("stages_s", {}).get("demo_tournament")
    add(
        "first use after make's install step (uno warm): env.reset + first step, then the demo's tournament",
        after_warm,
        TARGETS["first_use_after_warm_s"],
        "lower",
        "s",
    )
    keeper = [r for r in by_group.get("e", []) if r.get("policy") == "keeper"]
    add(
        "tournament hands/s of the compiled keeper",
        keeper[0]["episodes_per_s"] if keeper else None,
        TARGETS["heuristic_hands_per_s"],
        unit="hands/s",
    )
    return out


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
    import numba

    from uno_env.agents import policies as policy_kernels
    from uno_env.vector import PARALLEL_THRESHOLD

    def say(text):
        print(text, flush=True)

    rows: list[dict] = []
    vector: list[dict] = []

    def add(group, name, result, **extra):
        result = dict(result, group=group, name=name, **extra)
        rows.append(result)
        if "skipped" in result:
            say(f"  {name}: skipped ({result['skipped']})")
        else:
            say(f"  {name}: {fmt_rate(result['steps_per_s'])} steps/s")
        return result

    say("measuring (a) RLCard, (b) PettingZoo env, (c) Game, taking turns ...")
    made = {"a": rlcard_chunk(args), "b": pettingzoo_chunk(args), "c": game_chunk(args)}
    ready = {group: m[0] for group, m in made.items() if not isinstance(m, dict)}
    together = measure_interleaved(ready, args.seconds, args.repeats)
    names = {
        "a": "(a) RLCard uno env.step",
        "b": f"(b) uno_env.env (PettingZoo AEC, {args.players}p)",
        "c": "(c) Game single-game API",
    }
    for group, m in made.items():
        add(group, names[group], m if isinstance(m, dict) else dict(together[group], note=m[1]))
    say("measuring (d) vector env ...")
    for size in args.size_list:
        modes = [False] + ([True] if size >= 64 and numba.get_num_threads() > 1 else [])
        for parallel in modes:
            mode = "parallel" if parallel else "serial"
            result = add("d", f"(d) UnoVectorEnv N={size} {mode}", bench_vector(args, size, parallel))
            vector.append({"num_envs": size, "mode": mode, "steps_per_s": result["steps_per_s"]})
    size = max(args.size_list[-1], 1)
    learner = bench_vector(args, min(size, args.play_size), "auto", seats=[None] + ["random"] * (args.players - 1))
    add("d", f"(d) learner adapter path N={learner['num_envs']} (learner decisions)", learner, seats="learner")
    say("measuring (e) compiled policies inside the kernel ...")
    for name in policy_kernels.POLICY_IDS:
        add(
            "e",
            f"(e) play() all seats {name!r} N={args.play_size}",
            bench_play(args, name, args.play_size),
            policy=name,
        )
    add("e", f"(e) policies.play_batch random N={args.play_size}", bench_play_batch(args, args.play_size))
    say("state bytes, start-up ...")
    reference = rows[0].get("steps_per_s") if "skipped" not in rows[0] else None
    cpu_reference = rows[0].get("steps_per_cpu_s") if "skipped" not in rows[0] else None
    report: dict[str, Any] = {
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
    report["startup"] = bench_startup(args) if args.startup != "skip" else {"skipped": "--startup skip / --quick"}
    report["targets"] = targets(report)

    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_speed.json").write_text(json.dumps(report, indent=2))
    plot(report, args.out / "bench_speed.png")

    say("")
    say(report["title"])
    say(table(rows, reference, cpu_reference))
    say(
        "steps/cpu-s: per second of this process's CPU time (both threads of a parallel row); "
        f"load average {report['machine']['load_average']}"
    )
    say("")
    sb = report["state_bytes"][str(args.players)]
    say(
        f"state per game ({args.players} players): engine {sb['engine_state']} B, vector env {sb['vector_env']} B "
        f"(+ observation {sb['observation']} B, mask {sb['mask']} B, final observations {sb['final_observations']} B)"
    )
    startup = report["startup"]
    if "skipped" in startup:
        say(f"start-up: skipped ({startup['skipped']})")
    else:
        for label in ("cold", "cached", "first_use", "warm", "first_use_after_warm"):
            if label not in startup:
                continue
            entry = startup[label]
            if label == "warm":
                say(f"start-up warm (uno warm --jobs 2, empty cache): wall {entry['wall_s']:.1f}s")
                continue
            if "error" in entry:
                say(f"start-up {label}: failed: {entry['error']}")
            else:
                stages = ", ".join(
                    f"{k} {v:.2f}s" if isinstance(v, float) else f"{k} {v}" for k, v in entry["stages_s"].items()
                )
                say(f"start-up {label}: wall {entry['wall_s']:.2f}s ({stages}, cumulative)")
    say("")
    for t in report["targets"]:
        if t["value"] is None:
            say(f"  [ n/a ] {t['target']}: not measured")
            continue
        mark = "met " if t["met"] else "MISS"
        cpu = f"; per CPU-second {t['cpu_value']:.3g}{t['unit']}" if t.get("cpu_value") else ""
        say(f"  [{mark}] {t['target']}: {t['value']:.3g}{t['unit']} (goal {t['goal']:g}{t['unit']}{cpu})")
    say(f"\nwrote {args.out / 'bench_speed.json'} and {args.out / 'bench_speed.png'}")
    return 0


def _threading_layer() -> str | None:
    try:
        import numba

        return numba.threading_layer()
    except Exception:  # only known once a parallel kernel ran
        return None


if __name__ == "__main__":
    sys.exit(main())
