"""Outside agents (``cmd:``, uno_env/agents/program.py): the example bots play legal games, a
program that dies, stalls, writes garbage or answers an unavailable action costs what the
game's ``illegal_action`` says, processes end and are reaped (after a tournament, and when it
is interrupted), and programs play wherever agents play: ``uno tournament``, ``uno play``,
``uno serve`` (from its command line only) and the Gymnasium env's opponents."""

from __future__ import annotations

import io
import os
import pickle
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
import warnings
from pathlib import Path

import numpy as np
import pytest

from uno_env.agents import make_agent, parse_agent_spec
from uno_env.agents.program import ProgramAgent, ProgramFailure, ProgramFailureWarning
from uno_env.arena import TablePlayer, make_entrants
from uno_env.engine import Game, IllegalActionError
from uno_env.engine.entry import COMPILING

ROOT = Path(__file__).resolve().parent.parent
BOTS = Path(__file__).resolve().parent / "bots"
EXAMPLES = ROOT / "examples" / "bots"
NODE = shutil.which("node")


def bot(script: str | Path, *args: str, interpreter: str = sys.executable) -> str:
    return "cmd:" + shlex.join([interpreter, str(script), *args])


def bad(mode: str, *args: str) -> str:
    return bot(BOTS / "bad_bot.py", mode, *args)


def running(marker: str) -> list[int]:
    """The programs (not zombies) that have ``marker`` as an argument of their own."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def play(game: Game, agents: list, seed: int = 1, record: list | None = None):
    state = game.init(seed=seed)
    events = record if record is not None else []
    events += game.events(state)
    game.play(state, agents, on_step=lambda seat, action: events.extend(game.events(state)))
    return state


# ---------------------------------------------------------------------- the example bots


EXAMPLE_BOTS = [
    pytest.param(bot(EXAMPLES / "random_bot.py"), id="python"),
    pytest.param(
        bot(EXAMPLES / "random_bot.js", interpreter=NODE or "node"),
        id="node",
        marks=pytest.mark.skipif(NODE is None, reason="no node on PATH: the JavaScript example needs Node.js"),
    ),
]


@pytest.mark.parametrize("spec", EXAMPLE_BOTS)
def test_the_example_bots_play_legal_games_against_tactical(spec):
    """Under illegal_action="raise" any unavailable answer would stop a game."""
    game = Game(num_players=3, episode="round", illegal_action="raise")
    agent = make_agent(spec, game, seed=5)
    tactical = [make_agent("tactical", game, seed=s) for s in (1, 2)]
    for seed in range(4):
        agent.reset(100 + seed)
        players = [tactical[0], agent, tactical[1]] if seed % 2 else [agent, *tactical]
        state = play(game, players, seed=seed)
        assert game.is_over(state)
    assert agent.decisions > 20 and agent.failures == [] and agent.program_name.startswith("random_bot")
    agent.close()


@pytest.mark.parametrize("spec", EXAMPLE_BOTS)
def test_one_seed_gives_one_game_with_an_example_bot(spec):
    game = Game(num_players=2, episode="round")
    results = []
    for _ in range(2):
        agent = make_agent(spec, game, seed=9)
        events: list = []
        play(game, [agent, make_agent("tactical", game)], seed=3, record=events)
        results.append(events)
        agent.close()
    assert results[0] == results[1]


# ---------------------------------------------------------------------- what goes wrong


def test_an_unavailable_action_costs_what_illegal_action_says():
    tactical = "tactical"
    # penalty: a wrong card is taken back and its player draws 2; the game goes on
    game = Game(num_players=2, episode="round", illegal_action="penalty")
    agent = make_agent(bad("wrong_card"), game)
    events: list = []
    state = play(game, [agent, make_agent(tactical, game)], record=events)
    assert game.is_over(state) and any(e["type"] == "wrong_card" and e["seat"] == 0 for e in events)
    assert agent.failures == []
    agent.close()
    # penalty: an action that is not a card and not available stops the game
    agent = make_agent(bad("not_available"), game)
    with pytest.raises(IllegalActionError, match="is not available to player 0") as raised:
        play(game, [agent, make_agent(tactical, game)])
    assert raised.value.seat == 0 and not isinstance(raised.value, ProgramFailure)
    agent.close()
    # raise: every unavailable action stops the game, a wrong card too
    game = Game(num_players=2, episode="round", illegal_action="raise")
    agent = make_agent(bad("wrong_card"), game)
    with pytest.raises(IllegalActionError, match="cannot be played now") as raised:
        play(game, [agent, make_agent(tactical, game)])
    assert raised.value.seat == 0
    agent.close()
    # lose: the seat forfeits the game
    game = Game(num_players=2, episode="round", illegal_action="lose")
    for mode in ("wrong_card", "not_available"):
        agent = make_agent(bad(mode), game)
        events = []
        state = play(game, [make_agent(tactical, game), agent], record=events)
        assert game.outcome(state) == [0, -1] and events[-1] == {
            "type": "forfeit",
            "seat": 1,
            "card": events[-1]["card"],
        }
        assert agent.failures == []
        agent.close()


FAILURES = [
    ("die", "died", "exited with status 3; its stderr ends: 'bad_bot: dying on purpose'"),
    ("stall", "stalled", "no answer within 0.5 s"),
    ("garbage", "bad line", "not a line of JSON"),
    ("bad_ready", "bad line", "'ready? no'"),
]


@pytest.mark.parametrize(("mode", "what", "detail"), FAILURES, ids=[f[0] for f in FAILURES])
def test_a_failed_program_forfeits_under_lose(mode, what, detail):
    game = Game(num_players=2, episode="round", illegal_action="lose")
    agent = make_agent(bad(mode, "2"), game, decision_seconds=0.5)
    events: list = []
    with pytest.warns(ProgramFailureWarning, match=f"at seat 1, game 1: {what}: .*forfeits the game") as caught:
        state = play(game, [make_agent("tactical", game), agent], record=events)
    assert len(caught) == 1 and detail in str(caught[0].message)
    assert game.outcome(state) == [0, -1] and events[-1]["type"] == "forfeit"
    (failure,) = agent.failures
    assert (failure["game"], failure["seat"], failure["what"]) == (1, 1, what) and detail in failure["detail"]
    assert failure["step"] == game.step_count(state) - 1  # the step it missed, the forfeit's
    assert agent.process is None  # ended; the next game starts it again
    with pytest.warns(ProgramFailureWarning, match="game 2"):
        play(game, [make_agent("tactical", game), agent], seed=2)
    assert len(agent.failures) == 2
    agent.close()


@pytest.mark.parametrize("illegal_action", ["penalty", "raise"])
@pytest.mark.parametrize(("mode", "what", "detail"), FAILURES[:3], ids=[f[0] for f in FAILURES[:3]])
def test_a_failed_program_stops_the_game_under_penalty_and_raise(mode, what, detail, illegal_action):
    game = Game(num_players=2, episode="round", illegal_action=illegal_action)
    agent = make_agent(bad(mode, "2"), game, decision_seconds=0.5)
    with pytest.raises(ProgramFailure, match=f"at seat 0, game 1: {what}: ") as raised:
        play(game, [agent, make_agent("tactical", game)])
    assert raised.value.seat == 0 and raised.value.failure["what"] == what and detail in str(raised.value)
    assert f"illegal_action={illegal_action!r}: the game stops" in str(raised.value)
    assert isinstance(raised.value, IllegalActionError)
    agent.close()


def test_the_deadline_of_a_game():
    game = Game(num_players=2, episode="round", illegal_action="lose")
    agent = make_agent(bad("slow"), game, game_seconds=0.35)
    with pytest.warns(ProgramFailureWarning, match=r"stalled: no answer: its time for the game \(0.35 s\) is spent"):
        play(game, [agent, make_agent("tactical", game)])
    assert 2 <= agent.decisions <= 5
    agent.close()


def test_a_program_that_cannot_start_or_exits_at_once(tmp_path):
    with pytest.raises(ValueError, match="no program 'no-such-program-here'"):
        make_agent("cmd:no-such-program-here --x", Game())
    game = Game(num_players=2, episode="round", illegal_action="lose")
    script = tmp_path / "broken.sh"
    script.write_text("#!/no/such/interpreter\n")
    script.chmod(0o755)
    for spec, words in [
        (f"cmd:{script}", "could not start: .*No such file"),
        (f"cmd:{sys.executable} -c 'import sys; sys.exit(5)'", "died: it exited with status 5"),
    ]:
        agent = make_agent(spec, game)
        with pytest.warns(ProgramFailureWarning, match=words):
            play(game, [agent, make_agent("tactical", game)])
        agent.close()


def test_specs_and_options():
    assert parse_agent_spec("cmd:python bot.py --x=1:2") == ("cmd", {"command": "python bot.py --x=1:2"})
    assert parse_agent_spec("cmd:decision_seconds=0.5:game_seconds=9:python b.py") == (
        "cmd",
        {"decision_seconds": 0.5, "game_seconds": 9.0, "command": "python b.py"},
    )
    game = Game()
    for spec, words in [
        ("cmd:", "give the program's command after 'cmd:'"),
        ("cmd:decision_seconds=soon:python b.py", "decision_seconds='soon': expected a number of seconds"),
        ("cmd:decision_seconds=0:python b.py", "decision_seconds must be a positive number of seconds"),
        ("cmd:python 'unclosed", "No closing quotation"),
    ]:
        with pytest.raises(ValueError, match=words):
            make_agent(spec, game)
    with pytest.raises(ValueError, match="game_seconds must be a positive number"):
        make_agent(bad("marker"), game, game_seconds=float("inf"))
    agent = make_agent(bad("marker"), game, seed=4, decision_seconds=2)
    assert agent.name == bad("marker") and agent.process is None  # started at its first game
    copy = pickle.loads(pickle.dumps(agent))
    assert isinstance(copy, ProgramAgent) and (copy.command, copy.seed, copy.decision_seconds) == (
        agent.command,
        4,
        2.0,
    )


# ---------------------------------------------------------------------- processes


def zombies_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] == "Z" and int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def test_programs_are_ended_and_reaped():
    game = Game(num_players=2, episode="round", illegal_action="lose")
    marker = f"reaped-{uuid.uuid4().hex}"
    agents = [make_agent(bad("marker", marker), game), make_agent(bad("stubborn", marker), game)]
    play(game, agents)
    pids = [agent.process.popen.pid for agent in agents]
    assert sorted(running(marker)) == sorted(pids)
    stalled = make_agent(bad("stall", "1"), game, decision_seconds=0.2)
    with pytest.warns(ProgramFailureWarning, match="stalled"):
        play(game, [stalled, make_agent("random", game)])
    start = time.perf_counter()
    for agent in agents:
        agent.close()  # the stubborn one ignores the end of its input and SIGTERM: killed after the grace time
    assert time.perf_counter() - start < 3
    assert running(marker) == [] and zombies_of(os.getpid()) == []
    del agents[:]


def test_a_tournament_with_a_program_ends_its_processes(capsys, tmp_path):
    from uno_env.cli.tournament import main

    marker = f"tournament-{uuid.uuid4().hex}"
    spec = bad("stubborn", marker)  # plays well, but only a kill ends it
    rc = main(
        ["--agents", f"{spec},tactical", "--players", "2", "--games", "6", "--workers", "2"]
        + ["--bootstrap", "0", "--no-progress", "--out", str(tmp_path), "--save-games", "1"]
    )
    out = capsys.readouterr().out
    assert rc == 0 and spec in out and "tactical" in out
    assert (tmp_path / "games").is_dir()
    left = running(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


def as_from_a_terminal() -> None:
    """In the child before it runs: Ctrl-C as a terminal delivers it to a fresh program
    (SIGINT neither ignored nor blocked, whatever this test process inherited)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(("mode", "workers"), [("stubborn", 1), ("stubborn", 2), ("daemon", 2)])
def test_an_interrupted_tournament_leaves_no_program_behind(mode, workers, tmp_path):
    """Ctrl-C (SIGINT to the uno command) while stubborn programs play, or programs whose child
    left their process group (daemon): none is left running, in-process (workers=1) or in
    worker processes."""
    marker = f"interrupted-{uuid.uuid4().hex}"
    spec = bad(mode, marker, marker)
    command = [sys.executable, "-X", "faulthandler", "-m", "uno_env.cli", "tournament", "--agents", f"{spec},tactical"]
    command += ["--players", "2", "--games", "100000", "--workers", str(workers), "--no-files", "--no-progress"]
    command += ["--bootstrap", "0"]
    environ = {k: v for k, v in os.environ.items() if k != COMPILING}  # no compilation of this session to follow
    process = subprocess.Popen(
        command, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal
    )
    hung = ""
    try:
        deadline = time.monotonic() + 120
        while len(running(marker)) < workers and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(running(marker)) >= workers, "the programs did not start"
        time.sleep(0.5)
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)  # faulthandler writes where every thread was
            hung = process.communicate(timeout=30)[1].decode()[-4000:]
    finally:
        if process.poll() is None:
            process.kill()
    assert not hung, f"the tournament did not end within 60 s of Ctrl-C:\n{hung}"
    deadline = time.monotonic() + 10
    while running(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = running(marker)
    for pid in left:  # not to leave them running when the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == [], process.stderr.read().decode()[-2000:] if process.stderr else ""


def test_a_tournament_game_record_says_what_went_wrong():
    game = Game(num_players=2, episode="round", illegal_action="lose")
    entrants = make_entrants([bad("die", "3"), "tactical"], game.config)
    player = TablePlayer(game.config, entrants, seed=0)
    rec = player.play(0, (0, 1), record=True)  # warned of by run_tournament, which names the table game
    record = rec["record"]
    (noted,) = [(k, a) for k, a in enumerate(record["annotations"]) if a]
    step, annotation = noted
    assert annotation["failure"].startswith("died: it exited with status 3")
    assert record["seats"][step] == 0 and step == len(record["actions"]) - 1
    assert rec["outcome"][0].tolist() == [-1, 0] and rec["forfeit"][0] == 0
    (note,) = rec["notes"][0]
    assert (note["job"], note["hand"], note["decision"], note["what"], note["forfeit"]) == (0, 1, step, "died", True)
    for agent in player.agents.values():
        agent.close()


# ---------------------------------------------------------------------- wherever agents play


def test_uno_play_with_a_program_opponent():
    from uno_env.cli.play import main

    out = io.StringIO()
    script = "draw\npass\naccept\ncolor R\n" * 3000
    rc = main(
        ["--players", "2", "--opponents", bad("marker", "play"), "--seed", "4"], stdin=io.StringIO(script), stdout=out
    )
    text = out.getvalue()
    assert rc == 0 and f"opponents: P1 {bad('marker', 'play')}" in text and "winner: P1" in text


def test_the_gym_env_plays_a_program_opponent():
    from uno_env import UnoGymEnv

    opponent = make_agent(bad("marker", "gym"), Game(num_players=2, episode="round"))
    env = UnoGymEnv(opponents=[opponent], num_players=2, episode="round")
    rng = np.random.default_rng(0)
    episodes = 0
    _, info = env.reset(seed=1)
    while episodes < 3:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            episodes += 1
            _, info = env.reset()
    assert opponent.games >= 3 and opponent.decisions > 0 and opponent.failures == []
    opponent.close()
    shared = make_agent(bad("marker", "gym"), Game(num_players=3, episode="round"))
    env = UnoGymEnv(opponents=shared, num_players=3, episode="round")
    with pytest.raises(RuntimeError, match="one agent plays one seat"):
        env.reset(seed=1)
    shared.close()


def test_uno_serve_starts_only_the_programs_of_its_command_line():
    pytest.importorskip("starlette", reason="uno serve needs the web extra")
    from uno_env.cli.serve import Refused, Tables

    spec = bad("marker", "serve")
    tables = Tables({"num_players": 2, "episode": "round"}, [spec])
    assert "cmd" not in tables.options()["agents"]
    table = tables.create({"agents": [spec], "seed": 3})
    agent = table.agents[1]
    assert isinstance(agent, ProgramAgent) and agent.process is not None
    for other in (bad("marker", "other"), f"cmd:{sys.executable} -c 'print(1)'"):
        with pytest.raises(Refused, match="programs .cmd:. are named on uno serve's command line only") as refused:
            tables.create({"agents": ["tactical", other]})
        assert refused.value.status == 403
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        while not table.game.is_over(table.state):
            table.act(table.game.legal_actions(table.state)[0])
    assert agent.process is None  # ended with its game
