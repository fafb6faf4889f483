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

import agents
from experiments import tournament as CLI
from uno_env.engine import compile_notice

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_python(code: str, cache: pathlib.Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("UNO_COMPILE_NOTICE", "NUMBA_DISABLE_JIT")}
    environ.update(NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=False, cwd=ROOT
    )


def test_the_first_import_says_it_compiles_and_a_cached_one_does_not(tmp_path):
    """A bare ``import uno_env`` compiles two kernels eagerly: with an empty cache the
    engine's line is printed (once), with the cache it warmed nothing is."""
    cold = run_python("import uno_env", tmp_path)
    assert cold.returncode == 0, cold.stderr
    lines = [line for line in cold.stderr.splitlines() if "compiling" in line]
    assert lines == [compile_notice.notice_line("uno_env.engine.kernels")], cold.stderr
    assert "about" in lines[0] and "the rules engine's kernels" in lines[0]
    warm = run_python("import uno_env", tmp_path)
    assert warm.returncode == 0, warm.stderr
    assert "compiling" not in warm.stderr


def test_the_notice_can_be_silenced(tmp_path):
    quiet = run_python("import uno_env", tmp_path, UNO_COMPILE_NOTICE="0")
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

    from agents import neural as agent_neural
    from uno_env.engine import RuleConfig

    monkeypatch.setattr(agent_neural, "_WARNED", set())
    with pytest.warns(agent_neural.TrainingMismatchWarning, match=r"trained for 2 players, one hand.*num_players=4"):
        agents.make_agent("ppo", RuleConfig(num_players=4, episode="round"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a second agent at the same tables: no second warning
        agents.make_agent("ppo", RuleConfig(num_players=4, episode="round"), seed=1)
        agents.make_agent("ppo", RuleConfig(num_players=2, episode="round", max_steps=500))  # its own tables
        agents.make_agent("tactical", RuleConfig(num_players=4))  # heuristics are not trained
    with pytest.warns(agent_neural.TrainingMismatchWarning, match=r"stacking='same' \(trained: 'off'\)"):
        agents.make_agent("ppo", RuleConfig(num_players=2, episode="round", stacking="same"))


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
    ],
)
def test_a_command_without_its_extra_says_which_to_install(argv, hidden, extras):
    """The module is hidden (``sys.modules[name] = None``: importing it fails, and
    ``find_spec`` finds nothing), as in a plain ``pip install`` without the extra."""
    code = (
        "import sys\n"
        f"for name in {hidden!r}:\n"
        "    sys.modules[name] = None\n"
        "from experiments.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if not line.startswith("uno_env: compiling")]
    pip = f'pip install "uno-env[{extras}]" (in a clone: pip install -e ".[{extras}]")'
    assert lines == [f"uno {argv[0]} needs {', '.join(hidden)}, not installed: {pip}"], done.stderr
    assert "Traceback" not in done.stderr


def test_with_the_extras_installed_nothing_is_missing():
    from experiments.cli import COMMANDS, NEEDS, missing_extras

    assert set(NEEDS) <= set(COMMANDS)
    for command in COMMANDS:
        if all(importlib.util.find_spec(m) is not None for m in NEEDS.get(command, ())):
            assert missing_extras(command) is None
