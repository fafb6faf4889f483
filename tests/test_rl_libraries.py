"""docs/RL_LIBRARIES.md: each library's example runs as written, at smoke size.

The test runs each ```python block of the doc with a few numbers made smaller (steps,
hands, and hands cut at 200 decisions); each replaced text must be in its block, so the
doc cannot drift from what runs. `python -m tests.test_rl_libraries sb3_contrib` runs
one example at the size the doc gives (its figures), with its wall and CPU time.
"""

import pathlib
import re
import sys
import time

import pytest

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "RL_LIBRARIES.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
HANDS_CUT = ("max_steps=2_000", "max_steps=200")
DEV_EXTRA = "not installed: it is in the dev extra (pip install -c constraints.txt -e '.[dev]')"

# module the block imports -> (why it may be missing, smoke-size replacements, check of the block's namespace)
EXAMPLES = {
    "uno_env.vector": (
        "",
        [("UnoVectorEnv(1000,", "UnoVectorEnv(20,")],
        lambda ns: len(ns["decisions"]) == 20,
    ),
    "sb3_contrib": (
        "not installed: it is in the train extra (pip install -c constraints.txt -e '.[train]')",
        [
            ('MaskablePPO("MlpPolicy", env, seed=0)', 'MaskablePPO("MlpPolicy", env, seed=0, n_steps=128)'),
            ("total_timesteps=100_000", "total_timesteps=128"),
            ("hands=200", "hands=2"),
            HANDS_CUT,
        ],
        lambda ns: ns["model"].num_timesteps == 128 and 0 <= ns["sb3_win_rate"] <= 1,
    ),
    "tianshou": (
        DEV_EXTRA,
        [
            ("max_epochs=10", "max_epochs=1"),
            ("epoch_num_steps=5_000", "epoch_num_steps=200"),
            ("test_step_num_episodes=10", "test_step_num_episodes=1"),
            ("n_episode=200", "n_episode=2"),
            HANDS_CUT,
        ],
        lambda ns: len(ns["stats"].returns) == 2 and 0 <= ns["tianshou_win_rate"] <= 1,
    ),
    "torchrl": (
        DEV_EXTRA,
        [("rollout(20_000,", "rollout(300,"), HANDS_CUT],
        # a hand ends (or is cut at 200 decisions) within 300 decisions
        lambda ns: len(ns["rollout"]) == 300 and ns["hands"] >= 1,
    ),
    "agilerl": (
        "not installed: AgileRL pins pettingzoo<1.27 and tensordict 0.13 (TorchRL 0.14 needs 0.14) and pulls"
        " about a hundred packages, so it is no extra of this project; docs/RL_LIBRARIES.md says how to install it",
        [("range(5)", "range(1)"), ("play(50,", "play(2,"), ("test_hands = 100", "test_hands = 2"), HANDS_CUT],
        lambda ns: len(ns["memory"]) > 0 and 0 <= ns["agilerl_win_rate"] <= 1,
    ),
}


def example(module: str) -> str:
    """The doc's one block that imports ``module``."""
    found = [block for block in BLOCKS if re.search(rf"^(from|import) {re.escape(module)}\b", block, re.MULTILINE)]
    assert len(found) == 1, f"docs/RL_LIBRARIES.md: expected one example importing {module}, found {len(found)}"
    return found[0]


def smoke_size(module: str) -> str:
    code = example(module)
    for old, new in EXAMPLES[module][1]:
        assert code.count(old) == 1, f"the {module} example no longer contains {old!r} once"
        code = code.replace(old, new)
    return code


def run(code: str, module: str) -> dict:
    namespace = {"__name__": "__rl_libraries__"}
    exec(compile(code, f"docs/RL_LIBRARIES.md, the {module} example", "exec"), namespace)
    return namespace


def test_every_example_is_tested_and_the_readme_links_the_doc():
    assert len(BLOCKS) == len(EXAMPLES)
    for module in EXAMPLES:
        example(module)
    assert "(docs/RL_LIBRARIES.md)" in (DOC.parent.parent / "README.md").read_text()


@pytest.mark.parametrize("module", list(EXAMPLES))
def test_example_runs_at_smoke_size(module, capsys):
    reason, _, check = EXAMPLES[module]
    if reason:
        pytest.importorskip(module, reason=f"{module} {reason}")
    namespace = run(smoke_size(module), module)
    capsys.readouterr()
    assert check(namespace)


def main(module: str) -> None:
    """Runs one example at the doc's size; prints its output and the time it took."""
    wall, cpu = time.perf_counter(), time.process_time()
    run(example(module), module)
    print(f"{module}: {time.perf_counter() - wall:.0f} s wall, {time.process_time() - cpu:.0f} s CPU")


if __name__ == "__main__":
    main(sys.argv[1])
