"""The lowest pettingzoo and gymnasium that pyproject.toml declares, tested for real: both
are installed (``pip install --no-deps --target``) into a throwaway folder put first on a
fresh process's path, which then runs PettingZoo's ``api_test`` and ``seed_test`` on
``uno_env.env``, Gymnasium's env checker on ``UnoGymEnv`` and steps ``UnoGymVectorEnv``.

The install needs pip's index: offline, the test is skipped naming pip's connection
error; any other failure of pip (a floor the index does not hold) fails it."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FLOORED = ("pettingzoo", "gymnasium")

UNREACHABLE = (
    "connection broken by",
    "Failed to establish a new connection",
    "Could not fetch URL",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "ConnectTimeoutError",
    "ReadTimeoutError",
    "ProxyError",
)
"""What pip says when it cannot reach an index (it then finds no distribution)."""

FLOOR_CHECK = """
import warnings

import gymnasium
import numpy as np
import pettingzoo
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import uno_env
from uno_env.vector import UnoGymVectorEnv

assert (pettingzoo.__version__, gymnasium.__version__) == EXPECTED, (pettingzoo.__file__, gymnasium.__file__)
if hasattr(pettingzoo, "aec_registry"):  # pettingzoo.make exists from 1.27 on
    assert uno_env.ENV_ID in pettingzoo.aec_registry
house = {"num_players": 4, "stacking": "mixed", "seven_o": True, "jump_in": True, "force_play": True}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for settings in ({"num_players": 3}, house):
        api_test(uno_env.env(**settings), num_cycles=300)
        seed_test(lambda: uno_env.env(**settings), num_cycles=100)
        check_env(uno_env.UnoGymEnv(**settings), skip_render_check=False)
vector = UnoGymVectorEnv(2, num_players=3, opponents="tactical", render_mode="ansi")
obs, infos = vector.reset(seed=0)
for _ in range(50):
    actions = [int(np.flatnonzero(mask)[0]) for mask in infos["action_mask"]]
    obs, rewards, terminated, truncated, infos = vector.step(actions)
    assert vector.observation_space.contains(obs)
print("floor ok", pettingzoo.__version__, gymnasium.__version__)
"""


def declared_floors() -> dict[str, str]:
    """The ``>=`` floor of each of :data:`FLOORED` in pyproject.toml's dependencies."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    floors = {}
    for name in FLOORED:
        found = re.findall(rf'"{name}>=([0-9][0-9.]*)[",]', dependencies)
        assert len(found) == 1, f"pyproject.toml declares no single floor for {name}: {dependencies}"
        floors[name] = found[0]
    return floors


def pip_install(target: pathlib.Path, requirements: list[str], *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--target", str(target), "--retries", "1"]
    command += ["--timeout", "30", "--disable-pip-version-check", *options, *requirements]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)


def unreachable(output: str) -> str | None:
    """pip's line saying that it could not reach an index, or None."""
    return next((line.strip() for line in output.splitlines() if any(m in line for m in UNREACHABLE)), None)


def test_pip_that_cannot_reach_its_index_is_told_from_a_missing_version(tmp_path):
    refused = pip_install(tmp_path / "a", ["pettingzoo==1.25.0"], "--index-url", "http://127.0.0.1:9/simple")
    assert refused.returncode != 0 and "127.0.0.1" in (unreachable(refused.stdout + refused.stderr) or "")
    (tmp_path / "empty").mkdir()
    missing = pip_install(tmp_path / "b", ["pettingzoo==1.25.0"], "--no-index", "--find-links", str(tmp_path / "empty"))
    assert missing.returncode != 0 and unreachable(missing.stdout + missing.stderr) is None


def test_the_declared_floors_are_whole_versions():
    for name, floor in declared_floors().items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", floor), f"{name}>={floor}: the floor test installs {name}=={floor}"


@pytest.mark.slow
def test_the_lowest_declared_pettingzoo_and_gymnasium_pass_their_own_tests(tmp_path):
    floors = declared_floors()
    target = tmp_path / "floor"
    installed = pip_install(target, [f"{name}=={floor}" for name, floor in floors.items()])
    output = installed.stdout + installed.stderr
    if installed.returncode != 0:
        reason = unreachable(output)
        if reason is not None:
            pytest.skip(f"pip cannot reach its index to install the declared floors {floors}: {reason}")
        pytest.fail(f"pip could not install the declared floors {floors}:\n{output}")
    expected = (floors["pettingzoo"], floors["gymnasium"])
    code = f"EXPECTED = {expected!r}\n" + textwrap.dedent(FLOOR_CHECK)
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), str(ROOT)]))
    run = subprocess.run(
        [sys.executable, "-c", code], env=environ, cwd=ROOT, capture_output=True, text=True, check=False, timeout=900
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert f"floor ok {expected[0]} {expected[1]}" in run.stdout
