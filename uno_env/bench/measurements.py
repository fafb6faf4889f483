"""The measurements of ``uno bench`` (:mod:`uno_env.bench.speed`): rates of random legal play
taken repeat by repeat (:func:`measure`, :func:`measure_interleaved`), what is measured
((a) RLCard, (b) the PettingZoo env, (c) ``Game``, (d) the vector env, (e) compiled
policies in the kernel), the start-up of fresh processes and the bytes of state per game."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np

import uno_env
from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game
from uno_env.engine import kernels as K
from uno_env.engine.layout import S_STEP
from uno_env.engine.seeding import policy_seeds, seeds_to_rng
from uno_env.vector import UnoVectorEnv


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
        import rlcard  # optional: the bench extra
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
    env = uno_env.env(num_players=args.players, episode=args.episode)
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


# ---------------------------------------------------------------- (g) Gym wrapper
def gym_chunk(args):
    """(chunk, note) of the Gymnasium wrapper: the learner's steps (its opponents' turns inside each)."""
    env = uno_env.UnoGymEnv(num_players=args.players, episode=args.episode)
    chooser = random.Random(args.seed)
    seed = [args.seed]
    holder = {"info": env.reset(seed=seed[0])[1]}

    def chunk():
        decisions = episodes = 0
        info = holder["info"]
        for _ in range(200):
            legal = info["action_mask"].nonzero()[0]
            _, _, terminated, truncated, info = env.step(int(legal[chooser.randrange(len(legal))]))
            decisions += 1
            if terminated or truncated:
                episodes += 1
                seed[0] += 1
                _, info = env.reset(seed=seed[0])
        holder["info"] = info
        return decisions, episodes

    return chunk, "UnoGymEnv: step of the learner (compiled random opponents' turns inside), info's mask"


# ---------------------------------------------------------------- (c) Game
def game_chunk(args):
    """(chunk, note) of the single-game API."""
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
    game = Game(num_players=args.players, episode=args.episode)
    seat_policies = np.zeros((size, game.num_players), dtype=np.int64)
    counter = [args.seed]

    def chunk():
        state = game.new_state(size, events=False)
        state.rng[:] = seeds_to_rng(counter[0], size)
        counter[0] += size
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
agents = [f"{a}:determinizations=8" if a in ("ismcts", "ppo_search") else a for a in DEFAULT_AGENTS.split(",")]
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


# ---------------------------------------------------------------- state
def state_bytes(args) -> dict:
    """Bytes per game: of the engine's state and the vector env's, and of its buffers."""
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
