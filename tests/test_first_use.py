"""A newcomer's first use: numba's compilations say so (once, only when they really
compile), tournament runs keep their outputs apart, and the help lists the agents."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest
from numba import njit

from uno_env import agents
from uno_env.cli import tournament as CLI
from uno_env.engine import compile_notice

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_python(code: str, cache: pathlib.Path | None, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh process with numba's cache at ``cache`` (None: the session's own),
    without the settings of the test session that change what it prints or compiles."""
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("UNO_COMPILE_NOTICE", "NUMBA_DISABLE_JIT", "UNO_BACKGROUND_COMPILE")
    }
    if cache is not None:
        environ["NUMBA_CACHE_DIR"] = str(cache)
    environ.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=False, cwd=ROOT
    )


FIRST_GAME = """
import uno_env
from uno_env.engine.entry import ENGINE
env = uno_env.env(num_players=3)
env.reset(seed=4)
for _ in range(20):
    observation, _, terminated, truncated, _ = env.last()
    env.step(None if terminated or truncated else int(observation["action_mask"].argmax()))
print(ENGINE.mode)
print(repr(env.unwrapped._state.ints.tobytes()))
if ENGINE.process is not None:
    ENGINE.process.kill()  # the test does not wait the compilation out
"""


def test_a_first_game_on_an_empty_cache_says_it_compiles_in_the_background_and_plays_the_same(
    tmp_path, engine_in_the_cache
):
    """A bare ``import uno_env`` says nothing (it compiles two small kernels); the first
    game, with an empty cache, says in one line that the engine compiles in a
    background process and plays the same game interpreted; with the cache warm (here:
    the test session's own cache, warmed by the fixture) the same game is played
    compiled, and nothing is said."""
    bare = run_python("import uno_env", tmp_path / "bare")
    assert bare.returncode == 0 and "compiling" not in bare.stderr, bare.stderr
    cold = run_python(FIRST_GAME, tmp_path / "cold")
    assert cold.returncode == 0, cold.stderr
    lines = [line for line in cold.stderr.splitlines() if "compiling" in line]
    assert len(lines) == 1 and "the rules engine in a background process" in lines[0], cold.stderr
    assert "interpreted by Python" in lines[0] and "uno warm" in lines[0]
    assert cold.stdout.splitlines()[0].startswith("interpreted")
    warm = run_python(FIRST_GAME, None)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.splitlines()[0].startswith("compiled") and "compiling" not in warm.stderr
    assert warm.stdout.splitlines()[1] == cold.stdout.splitlines()[1]  # the same game, interpreted or compiled


def test_the_notice_can_be_silenced(tmp_path):
    code = "import uno_env\nfrom uno_env.engine.entry import ENGINE\nuno_env.env().reset(seed=0)\n"
    quiet = run_python(code + "ENGINE.process and ENGINE.process.kill()", tmp_path, UNO_COMPILE_NOTICE="0")
    assert quiet.returncode == 0 and "compiling" not in quiet.stderr


def compiled_pair():
    """An outer and an inner function of two modules that describe themselves (no cache)."""
    inner_globals: dict = {"__name__": "tests_notice_inner"}
    exec("def inner(x):\n    return x + 1\n", inner_globals)
    inner = njit(inner_globals["inner"])
    outer_globals: dict = {"__name__": "tests_notice_outer", "inner": inner}
    exec("def outer(x):\n    return inner(x) * 2\n", outer_globals)
    outer = njit(outer_globals["outer"])
    compile_notice.describe("tests_notice_inner", "the test's inner kernel", 1)
    compile_notice.describe("tests_notice_outer", "the test's outer kernel", 2)
    return inner, outer


def notices(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("uno_env: compiling")]


def test_a_module_announces_its_first_compilation_once_and_nested_ones_stay_quiet(capsys, monkeypatch):
    monkeypatch.delenv("UNO_COMPILE_NOTICE", raising=False)
    monkeypatch.setattr(compile_notice, "ANNOUNCED", set())
    inner, outer = compiled_pair()
    assert outer(1) == 4  # compiles outer, and inner inside it
    assert notices(capsys.readouterr().err) == [compile_notice.notice_line("tests_notice_outer")]
    assert outer(1.5) == 5.0  # a second specialisation: no second line
    assert notices(capsys.readouterr().err) == []
    assert inner(2.5) == 3.5  # inner compiled at the top level: its own line, once
    assert inner(True) == 2
    assert notices(capsys.readouterr().err) == [compile_notice.notice_line("tests_notice_inner")]
    assert compile_notice.COMPILED["tests_notice_outer"] > 0


def test_the_notice_is_written_above_a_progress_bar(capsys, monkeypatch):
    from tqdm import tqdm

    monkeypatch.delenv("UNO_COMPILE_NOTICE", raising=False)
    monkeypatch.setattr(compile_notice, "ANNOUNCED", set())
    writes = []
    monkeypatch.setattr(tqdm, "write", classmethod(lambda cls, line, file=None: writes.append(line)))
    _, outer = compiled_pair()
    with tqdm(total=2, file=sys.stderr):
        outer(3)
    assert writes == [compile_notice.notice_line("tests_notice_outer")]


# ---------------------------------------------------------------- tournament outputs and help

QUICK = ["--agents", "random,naive", "--players", "2", "--games", "2", "--bootstrap", "0", "--no-progress"]


def test_each_tournament_run_writes_its_own_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert CLI.main(QUICK) == 0
    assert CLI.main(QUICK) == 0
    folders = sorted(p for p in (tmp_path / "results").iterdir())
    assert len(folders) == 2
    for folder in folders:
        assert (folder / "tournament.json").is_file() and (folder / "tournament_leaderboard.csv").is_file()
    printed = capsys.readouterr().out
    for folder in folders:
        assert f"wrote {folder.relative_to(tmp_path)}/" in printed
    assert CLI.main([*QUICK, "--name", "demo"]) == 0
    assert (tmp_path / "results" / "demo" / "tournament.json").is_file()
    assert CLI.main([*QUICK, "--out", "elsewhere"]) == 0
    assert (tmp_path / "elsewhere" / "tournament.png").is_file()


@pytest.mark.parametrize("name", ["", "a/b", ".."])
def test_a_run_name_must_be_a_plain_folder_name(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert CLI.main([*QUICK, "--name", name]) == 2
    assert "--name must be a plain folder name" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()


def test_tournament_help_lists_every_registered_agent(monkeypatch):
    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))
    monkeypatch.setattr(agents, "_DESCRIPTIONS", dict(agents._DESCRIPTIONS))
    agents.register_agent("helpful", agents.make_ppo, description="an agent registered by the test")
    text = CLI.build_parser().format_help()
    listing = text[text.index("agents (--agents):") :].splitlines()[1:]
    assert [line.split()[0] for line in listing] == agents.agent_names()
    for name, description in agents.agent_descriptions().items():
        assert description or name not in agents._BUILTIN, f"the built-in agent {name!r} has no description"
        assert any(line.split(None, 1) == [name, description][: 2 if description else 1] for line in listing)
    assert "an agent registered by the test" in text


# ---------------------------------------------------------------- what a newcomer reads


def test_ppo_outside_its_training_tables_warns_once_naming_them(monkeypatch):
    import warnings

    from uno_env.agents import ppo as agent_neural
    from uno_env.agents.neural import network as networks
    from uno_env.engine import RuleConfig

    monkeypatch.setattr(networks, "_WARNED", set())
    with pytest.warns(agent_neural.TrainingMismatchWarning, match=r"trained for 4 players, one hand.*num_players=5"):
        agents.make_agent("ppo", RuleConfig(num_players=5, episode="round"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second agent at the same tables: no second warning
        agents.make_agent("ppo", RuleConfig(num_players=5, episode="round"), seed=1)
        agents.make_agent("ppo", RuleConfig(num_players=2, episode="round", max_steps=500))  # its own tables
        agents.make_agent("ppo", RuleConfig(num_players=3, episode="round"))  # the three-player network's
        agents.make_agent("ppo", RuleConfig(num_players=4, episode="round"))  # the four-player network's
        agents.make_agent("ppo", RuleConfig(num_players=6, episode="round"))  # the six-player network's
        agents.make_agent("ppo", RuleConfig(num_players=4, episode="round", partners=True))  # the partners one's
        agents.make_agent("tactical", RuleConfig(num_players=4))  # heuristics are not trained
    with pytest.warns(agent_neural.TrainingMismatchWarning, match=r"stacking='same' \(trained: 'off'\)"):
        agents.make_agent("ppo", RuleConfig(num_players=2, episode="round", stacking="same"))
    with pytest.warns(agent_neural.TrainingMismatchWarning, match=r"ppo_6p.npz.*partners=True \(trained: False\)"):
        agents.make_agent("ppo", RuleConfig(num_players=6, episode="round", partners=True))


def test_observe_dict_gives_counts_as_integers_and_the_observation_stays_float32():
    import numpy as np

    from uno_env.engine import Game
    from uno_env.engine.observation import COUNT_SLICES

    game = Game(num_players=3, stacking="same")
    state = game.init(seed=2)
    view = game.observe_dict(state, 0)
    assert game.observe(state, 0).dtype == np.float32
    assert view["hand_sizes"].tolist() == [7, 7, 7] and view["hand_sizes"].dtype == np.int64
    for name in COUNT_SLICES:
        assert np.issubdtype(view[name].dtype, np.integer), name
    assert str(view["hand_sizes"]) == "[7 7 7]"
    assert view["phase"].dtype == np.float32  # one-hot flags stay as the observation has them


# ---------------------------------------------------------------- extras that explain themselves


@pytest.mark.parametrize(
    "argv,hidden,extras",
    [
        (["train", "--smoke"], ["torch"], "train"),
        (["train", "--smoke"], ["tyro"], "train"),
        (["train-rllib", "--smoke"], ["ray"], "scale"),
        (["train-rllib", "--smoke"], ["ray", "tyro"], "scale,train"),
        (["serve", "--port", "0"], ["uvicorn"], "web"),
    ],
)
def test_a_command_without_its_extra_says_which_to_install(argv, hidden, extras):
    """The module is hidden (``sys.modules[name] = None``: importing it fails, and
    ``find_spec`` finds nothing), as in a plain ``pip install`` without the extra."""
    code = (
        "import sys\n"
        f"for name in {hidden!r}:\n"
        "    sys.modules[name] = None\n"
        "from uno_env.cli.main import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    done = run_python(code, None)
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("uno_env: compiling")]
    pip = f'pip install "uno-env[{extras}]" (in a clone: pip install -e ".[{extras}]")'
    assert lines == [f"uno {argv[0]} needs {', '.join(hidden)}, not installed: {pip}"], done.stderr
    assert "Traceback" not in done.stderr


def test_with_the_extras_installed_nothing_is_missing():
    from uno_env.cli.main import COMMANDS, NEEDS, missing_extras

    assert set(NEEDS) <= set(COMMANDS)
    for command in COMMANDS:
        if all(importlib.util.find_spec(m) is not None for m in NEEDS.get(command, ())):
            assert missing_extras(command) is None


# ---------------------------------------------------------------- uno warm


def test_uno_warm_lists_its_parts_and_warms_them(capsys):
    from uno_env.cli import warm

    assert warm.main(["--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == list(warm.PARTS) and listed[0].startswith("engine ")
    # the session's cache holds the engine already (other tests compiled it): seconds, and says so
    assert warm.main(["--part", "engine"]) == 0
    err = capsys.readouterr().err
    assert "uno warm: done in" in err and "engine" in err and "everything was in the cache already" in err
    assert "\r" not in err and "uno warm: 100%" in err  # not a terminal: the bar's frames are lines


def test_a_progress_bar_in_a_log_writes_a_line_at_most_every_ten_seconds():
    """Where standard error is not a terminal (CI's log), a bar writes a line of its own, at
    most one every LOG_SECONDS (the frames between wait, the newest replacing the older),
    and its last state when it closes; on a terminal it is tqdm's bar as it is."""
    import io

    from tqdm import tqdm

    from uno_env.progress import LOG_SECONDS, LogLines, progress_bar

    now = [0.0]
    log = io.StringIO()
    stream = LogLines(log, clock=lambda: now[0])
    with tqdm(total=32, file=stream, mininterval=0, bar_format="{n}") as bar:
        for _ in range(32):
            now[0] += 1.0
            bar.update(1)
    assert log.getvalue().splitlines() == ["0", "10", "20", "30", "32"]  # at 0 s, 10 s, 20 s, 30 s, the end
    assert LOG_SECONDS == 10.0 and "\r" not in log.getvalue()
    plain = io.StringIO()  # not a terminal: progress_bar writes lines
    with progress_bar(total=2, file=plain) as bar:
        bar.update(2)
    assert "\r" not in plain.getvalue() and plain.getvalue().splitlines()[-1].startswith("100%")

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    with progress_bar(total=2, file=terminal) as bar:
        bar.update(2)
    assert "\r" in terminal.getvalue()


def test_uno_warm_runs_the_parts_after_the_engine_in_processes_of_their_own(tmp_path):
    """``--jobs 2``: the engine here, the vector env in a second process (a fresh cache:
    both compile), then a second run finds both in the cache."""
    code = "from uno_env.cli.warm import main; raise SystemExit(main({}))"
    done = run_python(code.format(["--jobs", "2", "--part", "engine", "--part", "vector"]), tmp_path)
    assert done.returncode == 0, done.stderr
    assert "uno warm: done in" in done.stderr and "vector" in done.stderr
    assert "compiling the rules engine's kernels" in done.stderr  # in this process, not in the background
    again = run_python(code.format(["--part", "engine", "--part", "vector"]), tmp_path)
    assert again.returncode == 0 and "everything was in the cache already" in again.stderr, again.stderr


def test_uno_warm_refuses_a_bad_job_count(capsys):
    from uno_env.cli import warm

    with pytest.raises(SystemExit) as refused:
        warm.main(["--jobs", "0"])
    assert refused.value.code == 2 and "--jobs must be a positive integer, got 0" in capsys.readouterr().err
