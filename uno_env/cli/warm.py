"""``uno warm``: compile everything a first use needs, once, into numba's cache.

numba compiles the engine, the vector env's kernels, the compiled policies, the policy
network, the search and the Gymnasium wrapper's kernel the first time each runs (about
two minutes in all on two idle cores), then loads them from its cache in about a second. ``make`` runs this
command right after it installs the project, so that ``make demo`` and the first
``env.reset()`` start from a warm cache; after a plain ``pip install`` it is the
command the first compilation's line points to. Each part runs the code a newcomer
would run (:data:`PARTS`), in one process, or with ``--jobs 2`` the parts after the
engine in two processes at once. A part already in the cache takes about a second.

    uno warm              # everything, one part after the other, with a progress bar
    uno warm --jobs 2     # the engine first, then the other parts two at a time
    uno warm --list       # the parts and what each compiles
    NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=.numba-boundscheck uno warm --checked   # make test's second
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import uno_env
from uno_env.arena import run_tournament
from uno_env.engine import RuleConfig, compile_notice
from uno_env.progress import progress_bar
from uno_env.vector import UnoVectorEnv

SEARCH = "ismcts:determinizations=8"
"""The search with a small budget: what compiles does not depend on the budget."""


def engine() -> None:
    """The PettingZoo env and ``Game``: reset, legal actions, observation, a few steps."""
    env = uno_env.env(num_players=4)
    env.reset(seed=0)
    for _ in range(4):
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(observation["action_mask"].argmax()))


def vector() -> None:
    """The vector env's step on one core and on every core, and its own action sampler."""
    for parallel in (False, True):
        env = UnoVectorEnv(64, num_players=2, parallel=parallel, seed=0)
        env.step(env.sample_actions())


def policies() -> None:
    """The compiled policies (random, naive, ...) as a tournament plays them (its compiled loop)."""
    one_tournament(["random", "naive", "keeper", "tactical", "random_play"], players=4)


def gym() -> None:
    """The Gymnasium wrapper's one kernel call: the learner's step and its compiled opponents' turns."""
    env = uno_env.UnoGymEnv(num_players=2)
    _, info = env.reset(seed=0)
    env.step(int(info["action_mask"].argmax()))


def network() -> None:
    """The shipped policy network's forward pass (``ppo``), as a tournament and the vector env's play loop run it."""
    one_tournament(["ppo", "random"], players=2)
    env = UnoVectorEnv(64, num_players=2, seed=0)
    env.reset()
    env.play(max_decisions=1, policies=["ppo", "ppo"])


def search() -> None:
    """The search of ``ismcts`` (determinizations and tactical rollouts), as a tournament plays it."""
    one_tournament([SEARCH, "random"], players=2)


def one_tournament(agents: list[str], players: int) -> None:
    """One game per seating of single hands, in this process: what compiles is what any tournament compiles."""
    run_tournament(agents, RuleConfig(num_players=players, episode="round"), 1, workers=1, bootstrap=0)


PARTS: dict[str, Callable[[], None]] = {
    "engine": engine,
    "policies": policies,
    "search": search,
    "gym": gym,
    "vector": vector,
    "network": network,
}
"""What ``uno warm`` compiles, in order: the engine first (every other part calls it), the
network after the policies (its games run in their loop)."""
CHECKED_PARTS = ("engine", "policies", "search", "network")
"""What the tests of the invariants run under ``NUMBA_BOUNDSCHECK=1`` (``make test`` compiles
these bounds-checked, ``uno warm --checked``): not the Gymnasium wrapper's kernel nor the
vector env's step."""


def run_part(name: str) -> float:
    start = time.perf_counter()
    PARTS[name]()
    return time.perf_counter() - start


def run_in_processes(names: list[str], jobs: int, bar) -> dict[str, float]:
    """Each part in a process of its own, ``jobs`` at a time; seconds per part."""
    seconds: dict[str, float] = {}
    waiting = list(names)
    running: dict[str, tuple[subprocess.Popen, float]] = {}
    while waiting or running:
        while waiting and len(running) < jobs:
            name = waiting.pop(0)
            process = subprocess.Popen(
                [sys.executable, "-m", "uno_env.cli.warm", "--part", name, "--quiet"],
                env=dict(os.environ, UNO_COMPILE_NOTICE="0"),  # the bar names the parts
            )
            running[name] = (process, time.perf_counter())
        time.sleep(0.2)
        for name, (process, start) in list(running.items()):
            if process.poll() is None:
                continue
            del running[name]
            if process.returncode != 0:
                for other, _ in running.values():
                    other.kill()
                raise SystemExit(f"uno warm: the part {name!r} failed (exit status {process.returncode})")
            seconds[name] = time.perf_counter() - start
            bar.update(1)
            bar.set_postfix_str(f"{name} {seconds[name]:.0f} s")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="uno warm",
        description="compile the engine, the vector env, the compiled policies, the network, the "
        "search and the Gymnasium wrapper's kernel into numba's cache (about two minutes once; seconds when cached)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes for the parts after the engine (default 1)")
    parser.add_argument("--part", choices=list(PARTS), action="append", help="only this part (repeatable)")
    parser.add_argument(
        "--checked",
        action="store_true",
        help=f"only what the invariants' tests run bounds-checked ({', '.join(CHECKED_PARTS)}): make test's "
        "second compilation, under NUMBA_BOUNDSCHECK=1",
    )
    parser.add_argument("--list", action="store_true", help="list the parts and what each compiles")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(f"{name:9s} {(part.__doc__ or '').strip()}" for name, part in PARTS.items()))
        return 0
    if args.jobs < 1:
        parser.error(f"--jobs must be a positive integer, got {args.jobs}")
    names = args.part or (list(CHECKED_PARTS) if args.checked else list(PARTS))
    os.environ["UNO_BACKGROUND_COMPILE"] = "0"  # compile here (and in the parts' processes), not in a third
    if args.quiet:
        for name in names:
            run_part(name)
        return 0

    start = time.perf_counter()
    print(f"uno warm: compiling {', '.join(names)} into numba's cache ({cache_place()})", file=sys.stderr)
    compiled_before = sum(compile_notice.COMPILED.values())
    seconds = run_with_bar(names, args.jobs)
    compiled = sum(compile_notice.COMPILED.values()) - compiled_before  # seconds this run compiled
    parts = ", ".join(f"{name} {seconds[name]:.0f} s" for name in names)
    print(f"uno warm: done in {time.perf_counter() - start:.0f} s ({parts})", file=sys.stderr)
    if args.jobs == 1 and compiled < 1:
        print("uno warm: everything was in the cache already", file=sys.stderr)
    return 0


def run_with_bar(names: list[str], jobs: int) -> dict[str, float]:
    """The parts under a progress bar: in this process one after the other (``jobs`` 1), or the
    engine here first and the others in ``jobs`` processes at once; seconds per part."""
    with progress_bar(total=len(names), desc="uno warm", unit="part") as bar, ticking(bar):
        seconds: dict[str, float] = {}
        serial = names if jobs == 1 else names[:1] if names[0] == "engine" else []
        for name in serial:
            bar.set_postfix_str(name)
            seconds[name] = run_part(name)
            bar.update(1)
        rest = [name for name in names if name not in seconds]
        if rest:
            seconds.update(run_in_processes(rest, jobs, bar))
    return seconds


@contextlib.contextmanager
def ticking(bar, every: float = 1.0):
    """Redraw ``bar`` every ``every`` seconds while a part compiles (its clock moves: never frozen)."""
    done = threading.Event()

    def tick() -> None:
        while not done.wait(every):
            bar.refresh()

    thread = threading.Thread(target=tick, name="uno-warm-ticker", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def cache_place() -> str:
    """Where numba writes its cache: NUMBA_CACHE_DIR, or __pycache__ beside the sources."""
    return os.environ.get("NUMBA_CACHE_DIR") or "__pycache__ beside the sources"


if __name__ == "__main__":
    sys.exit(main())
