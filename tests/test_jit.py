"""The compiled functions run without numba's reference counting, and nothing leaks."""

import importlib
import json
import os
import pathlib
import pkgutil
import subprocess
import sys

from numba.core.registry import CPUDispatcher

import uno_env.agents.ismcts as ismcts
from uno_env.agents.neural import colours, forward_pass, shipped
from uno_env.agents.policies import choices, dispatch, house, play, simple, tactical
from uno_env.engine import kernels, numba_cache, readers
from uno_env.vector import fused

PACKAGES = tuple(
    importlib.import_module(f"{package.__name__}.{name}") for package in (kernels, readers) for name in package.MODULES
)
MODULES = (*PACKAGES, choices, simple, tactical, house, dispatch, play, forward_pass, colours, shipped, fused, ismcts)
# the functions that allocate arrays keep the counting (uno_env.engine.jit.allocating)
ALLOCATING = {
    "play_batch_serial",
    "determinize",
    "forward",
    "network_logits",
    "network_logits_batch",
    "policy_logits",
    "policy_action",
    "policy_logits_batch",
    "search",
}


def compiled_functions():
    for module in MODULES:
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                yield name, value
    for k, advance in enumerate(fused.ADVANCE):
        yield f"ADVANCE[{k}]", advance


def test_every_compiled_function_says_whether_it_counts_references():
    """numba compiles a callee that leaves ``_nrt`` (or ``forceinline``) unset with its
    caller's setting: an allocating helper called from a kernel would then fail to
    compile (or, worse, a kernel called from an allocating function would count again),
    and a helper called from a force-inlined function would be inlined everywhere. Each
    cached function is a ``kernel`` or ``allocating``; functions inlined at every call
    site by numba take their caller's, and the ``prange`` loop keeps numba's default."""
    seen = set()
    for name, dispatcher in compiled_functions():
        options = dispatcher.targetoptions
        if options.get("inline") == "always" or options.get("parallel"):
            continue
        seen.add(name)
        assert options.get("_nrt") is (name in ALLOCATING), name
        assert options.get("forceinline") in (True, False), name  # inherited when unset
    assert {"step_game", "legal_mask", "observe", "play_game", "ADVANCE[1]", "rollout_value"} <= seen
    assert seen >= ALLOCATING


def test_every_module_of_compiled_agents_is_checked_here():
    """MODULES holds every module of ``uno_env.agents`` and ``uno_env.vector`` that defines compiled
    functions (a module split off one of them joins the checks above and below)."""
    import uno_env.agents
    import uno_env.vector

    found = set()
    for package in (uno_env.agents, uno_env.vector):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("sb3_adapter"):
                continue  # needs stable-baselines3 (the train extra); no compiled functions
            module = importlib.import_module(info.name)
            if any(isinstance(v, CPUDispatcher) and v.__module__ == module.__name__ for v in vars(module).values()):
                found.add(module.__name__)
    assert found == {m.__name__ for m in MODULES if m not in PACKAGES}  # the engine's packages aside


def test_every_module_with_compiled_functions_is_hashed_for_the_cache():
    """``numba_cache`` clears the cached kernels when a source they may compile in changes:
    a module that compiles through ``uno_env.engine.jit`` without importing numba counts."""
    root = pathlib.Path(numba_cache.__file__).resolve().parents[2]
    hashed = set(numba_cache.project_sources(root))
    for module in MODULES:
        assert pathlib.Path(module.__file__).resolve() in hashed, module.__name__


LEAK_SCRIPT = r"""
import json
import numpy as np
from numba.core.runtime import rtsys
from uno_env.agents import make_agent
from uno_env.engine import Game
from uno_env.vector import UnoVectorEnv
from uno_env.agents import policies as policy_kernels
from tests.test_policies import fresh_batch, run_batch

def run():
    env = UnoVectorEnv(8, num_players=3, seed=1)
    env.reset()
    for name in ("random", "naive", "keeper", "tactical", "random_play", "ppo"):
        env.play(60, policies=[name] * 3)
    env.reset()
    for _ in range(20):
        env.step(env.sample_actions())
    game = Game(num_players=2)
    state = game.init(seed=2)
    agent = make_agent("ismcts:determinizations=4:max_rollout_steps=100", game, seed=0)
    for _ in range(20):
        if game.is_over(state):
            game.reset(state)
        seat = game.current_player(state)
        game.step(state, agent(game.observe(state, seat), game.legal_mask(state)))
    batch, prng = fresh_batch(game, 4, seed=3)
    keepers = np.full((4, 2), policy_kernels.KEEPER, dtype=np.int64)
    run_batch(policy_kernels.play_batch, game, batch, prng, keepers, True, 50)

run()  # compiles or loads from the cache: the second run is the one counted
before = rtsys.get_allocation_stats()
run()
after = rtsys.get_allocation_stats()
print(json.dumps({"alloc": after.alloc - before.alloc, "free": after.free - before.free,
                  "mi_alloc": after.mi_alloc - before.mi_alloc, "mi_free": after.mi_free - before.mi_free}))
"""


def test_compiled_play_frees_every_array_it_allocates():
    """The kernels never get an array that an allocating function made (it would never
    be freed): numba's allocation counters balance over vector play with every compiled
    policy (the network's layers allocate), stepping, the search and ``play_batch``."""
    env = dict(os.environ, NUMBA_NRT_STATS="1")
    root = pathlib.Path(__file__).resolve().parents[1]  # the script imports tests.test_policies
    done = subprocess.run(
        [sys.executable, "-c", LEAK_SCRIPT], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    assert counts["alloc"] > 0  # the network and the search did allocate
    assert counts["alloc"] == counts["free"]
    assert counts["mi_alloc"] == counts["mi_free"]


def test_no_kernel_is_compiled_again_for_a_literal_game_index():
    """A compiled caller passes a typed game index (``np.int64(0)``), not a literal ``0``:
    numba compiles a callee anew for each literal argument, and the Gymnasium wrapper's
    kernel once compiled every engine kernel, the policies and the network a second time
    (docs/DECISIONS.md, decision 41). Read from numba's cache index, once that kernel ran."""
    from numba.core import types

    import uno_env

    env = uno_env.UnoGymEnv(num_players=2)
    _, info = env.reset(seed=0)
    env.step(int(info["action_mask"].argmax()))
    for kernel in (kernels.step_game, kernels.observe, kernels.legal_mask, dispatch.policy_act):
        signatures = [key[0] for key in kernel._cache._cache_file._load_index()]
        literal = [sig for sig in signatures if any(isinstance(arg, types.Literal) for arg in sig)]
        assert signatures and literal == [], (kernel.__name__, literal)
