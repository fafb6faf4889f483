"""Seeded fuzz of the doors that take files and values: positions, the ``uno`` command's
options, the vector env's play and render counts, weights files and pickle protocols.

Each case is a known-bad input, and its answer falls in one class:

* ``clear``: refused, nothing changed, and the message names the bad input (for a
  position: a PositionError naming the mutated key; for a command: exit status 2, no
  traceback, the value named on its last line);
* ``unclear-error``: refused, but with another error or a message that does not name it;
* ``refused-but-changed``: refused, but something changed first (the position dict, a
  fresh seed drawn, a file or folder written);
* ``impossible-taken``: accepted (the command went on to run);
* ``crash``: the interpreter's own failures (MemoryError, RecursionError, SystemError).

The counts are printed; every class but ``clear`` must be empty. ``UNO_FUZZ_SCALE=10``
(say) multiplies the positions sampled. The test uses only public doors, so that it runs
unchanged on earlier commits for a before/after count.
"""

from __future__ import annotations

import collections
import copy
import json
import os
import pickle
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from uno_env.agents import neural
from uno_env.cli import main as cli
from uno_env.engine import Game, PositionError
from uno_env.engine.cards import WILD, face_colour, parse_card

from .test_neural import write_files_that_are_no_network
from .test_pickle import pickled_objects

SCALE = int(os.environ.get("UNO_FUZZ_SCALE", "1"))
CLASSES = ("clear", "unclear-error", "refused-but-changed", "impossible-taken", "crash")
CRASHES = (MemoryError, RecursionError, SystemError)
VARIANTS = [
    {"num_players": 2},
    {"num_players": 3, "deck": "fashion_trend"},
    {"num_players": 4, "partners": True},
    {"num_players": 3, "scoring": "challenge", "target_score": 60},
    {"num_players": 3, "scoring": "alternative", "target_score": 60},
    {"num_players": 4, "stacking": "mixed", "seven_o": True, "jump_in": True},
    {"num_players": 3, "illegal_action": "lose", "max_steps": 60},
]


class Taken(Exception):
    """Raised where a command would start its work: the bad value was taken."""


def report(name: str, counts: collections.Counter, examples: dict) -> None:
    line = ", ".join(f"{c} {counts[c]}" for c in CLASSES)
    print(f"\n[fuzz {name}] {sum(counts.values())} cases: {line}")
    for cls, example in examples.items():
        print(f"  {cls}: {example}"[:300])


# ---------------------------------------------------------------------- positions
def sampled_positions(rng: np.random.Generator, per_variant: int) -> list[tuple[dict, dict]]:
    """(settings, position) along seeded random games, finished ones included."""
    found = []
    for settings in VARIANTS:
        game = Game(**{"target_score": 60, "max_steps": 300, **settings})
        state = game.init(seed=int(rng.integers(2**31)))
        picks = set(rng.choice(1500, per_variant, replace=False).tolist())
        over = 0
        for step in range(1500):
            if step in picks or (game.is_over(state) and over < 2):
                found.append((settings, game.position(state)))
            if game.is_over(state):
                over += 1
                state = game.init(seed=int(rng.integers(2**31)))
                continue
            game.step(state, int(rng.choice(game.legal_actions(state))))
    return found


def move_hand_to_draw_pile(position: dict, seat: int) -> dict:
    out = copy.deepcopy(position)
    out["draw_pile"] = out["hands"][seat] + out["draw_pile"]
    out["hands"][seat] = []
    return out


def mutations(config, position: dict, rng: np.random.Generator) -> list[tuple[str, dict]]:
    """(key at fault, mutated position): changes that no reachable game shows."""
    n = config.num_players
    in_play = position["phase"] != "over"
    out: list[tuple[str, dict]] = []

    def put(key: str, value) -> None:
        changed = copy.deepcopy(position)
        changed[key] = value
        out.append((key, changed))

    def put_seat(key: str, seat: int, value) -> None:
        values = list(position[key])
        values[seat] = value
        put(key, values)

    seat = int(rng.integers(n))
    put("num_players", float(n))
    put("num_players", str(n))
    put("num_players", n + 1)
    put("deck", [position["deck"]])
    put("step", 2**31 - 2)
    put("step", -1)
    put("step", float(position["step"]))
    put("round", -1)
    put("round", position["step"] + 1)
    put("rng", "0x0")
    put("rng", int(position["rng"], 16))
    put("direction", 0)
    put("direction", float(position["direction"]))
    put("dealer", n)
    put("current_player", 0.5)
    put("current_player", True)
    put_seat("scores", seat, -1)
    put_seat("scores", seat, float(position["scores"][seat]))
    put_seat("outcome", seat, 2)
    put_seat("alive", seat, 1)
    put("hands", position["hands"][:-1])
    put("scores", position["scores"][:-1])
    top = parse_card(position["discard_pile"][-1])
    if top < WILD and position["colour"] is not None:
        other = "RYGB"[(face_colour(top) + 1 + int(rng.integers(3))) % 4]
        put("colour", other)
    if in_play:
        put("step", config.max_steps)
        put("terminated", True)
        put("forfeit", seat)
        if position["round"] == 0:
            put("last_winner", seat)
        alive = [s for s in range(n) if position["alive"][s]]
        target = config.target_score
        put_seat("scores", alive[0], target + 1)
        put_seat("outcome", alive[-1], 1)
        if config.partners:
            put_seat("scores", seat, position["scores"][seat] + 10)
        if config.scoring != "challenge":
            eliminated = move_hand_to_draw_pile(position, seat)
            eliminated["alive"][seat] = False
            out.append(("alive", eliminated))
        if position["phase"] in ("play", "color", "penalty", "swap", "challenge") and position["catch_window"] is None:
            offender = (position["wild_draw_four"] or {}).get("offender")
            others = [s for s in alive if s not in (position["current_player"], offender)]
            if others:
                out.append(("hands", move_hand_to_draw_pile(position, others[0])))
    else:
        put("current_player", 0)
        both = copy.deepcopy(position)
        both["terminated"] = both["truncated"] = True
        out.append(("truncated", both))
        neither = copy.deepcopy(position)
        neither["terminated"] = neither["truncated"] = False
        out.append(("terminated", neither))
        if position["truncated"]:
            put("step", config.max_steps + 1)
    return out


def test_fuzz_positions(monkeypatch, capsys):
    """Impossible positions: refused naming the key, the dict untouched, no seed drawn."""
    import uno_env.engine.seeding as seeding

    drawn = []
    real_fresh_seed = seeding.fresh_seed
    monkeypatch.setattr(seeding, "fresh_seed", lambda: drawn.append(1) or real_fresh_seed())
    rng = np.random.default_rng(2021)
    counts: collections.Counter = collections.Counter()
    examples: dict = {}
    loaded_back = 0
    for settings, position in sampled_positions(rng, 6 * SCALE):
        game = Game(**{"target_score": 60, "max_steps": 300, **settings})
        game.from_position(json.loads(json.dumps(position)))  # the sampled one loads
        loaded_back += 1
        for key, bad in mutations(game.config, position, rng):
            if key != "rng" and rng.random() < 0.5:
                del bad["rng"]  # unseeded: a fresh seed, to be drawn only once the position is valid
            before = copy.deepcopy(bad)
            drawn.clear()
            try:
                game.from_position(bad)
                verdict, detail = "impossible-taken", "loaded"
            except PositionError as err:
                named = err.key == key and str(err).startswith(key)
                changed = bad != before or drawn
                verdict = "refused-but-changed" if changed else "clear" if named else "unclear-error"
                detail = f"PositionError({err.key!r}): {err}"
            except CRASHES as err:
                verdict, detail = "crash", repr(err)
            except Exception as err:  # noqa: BLE001  (any other error is the class under test)
                verdict, detail = "unclear-error", f"{type(err).__name__}: {err}"
            counts[verdict] += 1
            if verdict != "clear":
                examples.setdefault(verdict, f"{key} in {settings}, phase {position['phase']}: {detail}")
    with capsys.disabled():
        report("positions", counts, examples)
    assert loaded_back > 0
    assert counts["clear"] == sum(counts.values()), (counts, examples)


# ---------------------------------------------------------------------- the uno command
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cli_cases(folder: Path) -> list[tuple[list[str], str]]:
    """(argv, the text its error must name)."""
    blocker = folder / "a-file"
    cases = []
    for value in ("nan", "inf", "-inf", "-1", "0", "1e9", "soon"):
        cases.append((["bench", f"--seconds={value}"], value))  # '--seconds -inf' would read as an option
    for option, values in (
        ("--repeats", ("0", "-1", "10000000")),
        ("--players", ("0", "1", "11", "two", "2.5")),
        ("--play-decisions", ("-5", "0")),
        ("--play-size", ("0", "-1", str(10**13))),
        ("--sizes", ("1,-3", "0", f"1,{10**13}", "a")),
        ("--seed", ("-1", str(2**64))),
    ):
        cases += [(["bench", option, value], value.split(",")[-1]) for value in values]
    cases.append((["bench", "--out", str(blocker / "results")], str(blocker)))
    for option, values in (
        ("--games", ("0", "-3", str(10**12), "many")),
        ("--bootstrap", ("-1", str(10**9))),
        ("--seed", ("-1", str(2**64))),
        ("--players", ("1", "11")),
        ("--workers", ("0", "-2")),
    ):
        cases += [(["tournament", "--no-files", option, value], value) for value in values]
    cases.append((["tournament", "--games", "4", "--out", str(blocker)], str(blocker)))
    for option, values in (("--players", ("1", "11", "x")), ("--seed", ("-1", str(2**64)))):
        cases += [(["playthrough", option, value], value) for value in values]
    cases.append((["playthrough", "--write", "--dir", str(blocker / "sub")], str(blocker)))
    return cases


def test_fuzz_command_values(monkeypatch, capsys, tmp_path):
    """Bad ``uno`` option values: exit 2 with one line naming the value, nothing written,
    the command's work never started (it raises Taken here)."""
    from uno_env import playthrough
    from uno_env.bench import speed as bench_speed
    from uno_env.cli import tournament

    real_parse = bench_speed.parse_args

    def parse_then_stop(argv):
        real_parse(argv)
        raise Taken("bench")

    def stop(*args, **kwargs):
        raise Taken("work")

    monkeypatch.setattr(bench_speed, "parse_args", parse_then_stop)
    monkeypatch.setattr(tournament, "run_tournament", stop)
    monkeypatch.setattr(playthrough, "playthrough", stop)
    work = tmp_path / "cwd"
    work.mkdir()
    (work / "a-file").write_text("")
    monkeypatch.chdir(work)
    counts: collections.Counter = collections.Counter()
    examples: dict = {}
    for argv, named in cli_cases(work):
        try:
            status = cli.main(argv)
        except SystemExit as done:
            status = done.code
        except Taken:
            status = "taken"
        except CRASHES as err:
            status = f"crash {err!r}"
        except Exception as err:  # noqa: BLE001
            status = f"traceback {type(err).__name__}: {err}"
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        written = sorted(p.name for p in work.iterdir()) != ["a-file"]
        if status == "taken" or status == 0:
            verdict = "impossible-taken"
        elif isinstance(status, str) and status.startswith("crash"):
            verdict = "crash"
        elif written:
            verdict = "refused-but-changed"
        elif status == 2 and lines and "Traceback" not in err and named in lines[-1]:
            verdict = "clear"
        else:
            verdict = "unclear-error"
        counts[verdict] += 1
        if verdict != "clear":
            examples.setdefault(verdict, f"uno {' '.join(argv)}: {status} {lines[-1:] if lines else ''}")
        for extra in work.iterdir():
            if extra.name != "a-file":
                shutil.rmtree(extra) if extra.is_dir() else extra.unlink()
    # a Ray address that does not answer: refused within a timeout, before Ray connects
    import ray

    def connect(*args, **kwargs):
        raise Taken("ray.init")

    monkeypatch.setattr(ray, "init", connect)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    from uno_env.arena.distributed import start_ray

    for address in (f"127.0.0.1:{closed_port()}", f"ray://127.0.0.1:{closed_port()}"):
        try:
            start_ray(address)
            verdict, detail = "impossible-taken", "connected"
        except Taken:
            verdict, detail = "impossible-taken", "ray.init called (it retries for minutes)"
        except ValueError as err:
            verdict = "clear" if address in str(err) and " s" in str(err) else "unclear-error"
            detail = str(err)
        counts[verdict] += 1
        if verdict != "clear":
            examples.setdefault(verdict, f"start_ray({address!r}): {detail}")
    with capsys.disabled():
        report("uno command", counts, examples)
    assert counts["clear"] == sum(counts.values()), (counts, examples)


# ---------------------------------------------------------------------- counts, files, pickles
def test_fuzz_counts_files_and_pickles(tmp_path, capsys):
    """The vector env's play and render counts, files that are no weights file, and pickle
    protocols 0 and 1: refused, naming the value (the path; the protocol that works)."""
    from uno_env.vector import UnoVectorEnv

    counts: collections.Counter = collections.Counter()
    examples: dict = {}

    def judge(label: str, call, named: str, changed=lambda: False) -> None:
        try:
            call()
            verdict, detail = "impossible-taken", "accepted"
        except CRASHES as err:
            verdict, detail = "crash", repr(err)
        except Exception as err:  # noqa: BLE001
            text = str(err)
            verdict = "refused-but-changed" if changed() else "clear" if named in text else "unclear-error"
            detail = f"{type(err).__name__}: {text}"
        counts[verdict] += 1
        if verdict != "clear":
            examples.setdefault(verdict, f"{label}: {detail}")

    env = UnoVectorEnv(3, num_players=2)
    env.reset(seed=0)
    ints = env.ints.copy()

    def games_changed() -> bool:
        return not np.array_equal(env.ints, ints)

    for bad in (-5, -1, 2.5, True, 2**63, "8"):
        judge(f"play(max_decisions={bad!r})", lambda b=bad: env.play(max_decisions=b), "max_decisions", games_changed)
        env.reset(seed=0)
    for bad in (-1, -3):
        call = lambda b=bad: env.play(max_decisions=4, max_episodes=b)  # noqa: E731
        judge(f"play(max_episodes={bad!r})", call, "max_episodes", games_changed)
        env.reset(seed=0)
    for bad in (100, 2, -1, 0.5, True, "0"):
        judge(f"render_games(viewer={bad!r})", lambda b=bad: env.render_games("ansi", viewer=b), "viewer")

    for path in write_files_that_are_no_network(tmp_path):

        def load(path=path):
            try:
                neural.load_network(path)
            except ValueError as err:
                if "not a policy network" not in str(err) or "allow_pickle" in str(err):
                    raise ValueError(f"(unclear) {err}") from None
                raise

        judge(f"load_network({path.name})", load, str(path))

    for label, obj in pickled_objects().items():
        for protocol in (0, 1):

            def dump(obj=obj, protocol=protocol):
                pickle.loads(pickle.dumps(obj, protocol=protocol))

            judge(f"pickle {label} protocol {protocol}", dump, "protocol 2")
    with capsys.disabled():
        report("counts, files, pickles", counts, examples)
    assert counts["clear"] == sum(counts.values()), (counts, examples)


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_the_protocols_that_work_still_work(protocol):
    game = Game(num_players=2)
    state = game.init(seed=4)
    copy_game, copy_state = pickle.loads(pickle.dumps((game, state), protocol=protocol))
    assert copy_game.config == game.config and copy_state == state
