"""Every agent of uno_env, compiled or not, and their registry (:func:`make_agent`).

>>> from uno_env.agents import make_agent
>>> from uno_env.engine import RuleConfig
>>> agent = make_agent("tactical", RuleConfig(num_players=4), seed=0)
>>> action = agent(observation, mask)  # doctest: +SKIP

An agent maps the acting player's observation and legal mask to an action id (the
protocol: :mod:`.base`). The agents by the names :func:`make_agent` knows, what they are
and where their logic lives (one line each; what each plays: :func:`agent_descriptions`)::

    random       compiled policy   uno_env.agents.policies.simple.random_policy
    random_play  compiled policy   uno_env.agents.policies.simple.random_play_policy
    naive        compiled policy   uno_env.agents.policies.simple.naive_policy
    keeper       compiled policy   uno_env.agents.policies.simple.keeper_policy
    tactical     compiled policy   uno_env.agents.policies.tactical.tactical_policy
    tactical_v1  compiled policy   uno_env.agents.policies.tactical.tactical_v1_policy
    ppo          compiled policy   uno_env.agents.neural.shipped.shipped_policy (the shipped networks)
    ismcts       Python, compiled  uno_env.agents.ismcts.ISMCTSAgent (its search: uno_env.agents.ismcts.search)
    ppo_search   Python, compiled  uno_env.agents.ismcts.make_ppo_search (ismcts with ppo's rollouts)
    human        Python            uno_env.agents.human.HumanAgent
    cmd          another program   uno_env.agents.program.ProgramAgent (the protocol: docs/PROTOCOL.md)

A compiled policy plays one decision from Python (:class:`CompiledAgent`) or whole games
inside compiled code, by its id (``policies.POLICY_IDS``: tournaments, the vector env's
seats, the search's rollouts). ``ppo:weights=PATH`` plays any network file through
:class:`NetworkAgent` (:mod:`.ppo`). The rest of this folder: :mod:`.base` (``Agent``,
``CompiledAgent``), :mod:`.inputs` (the checks of what a policy is handed; ``CompiledPolicy``),
:mod:`.policies` (the compiled policies, their dispatch by id and the compiled play loops)
and :mod:`.neural` (network files, the compiled forward pass, the shipped networks);
:mod:`.specs` (agent specs read strictly), :mod:`.following`, :mod:`.protocol` and
:mod:`.program` (agents that follow the game's
events; the protocol's messages; programs as agents), :mod:`.text` (the decision in words,
and :func:`~uno_env.agents.text.text_agent`: any function ``text -> text`` as an agent).

An agent *spec* is a name with options, ``name:key=value:key=value`` (e.g.
``ismcts:determinizations=64``), as the tournament's ``--agents`` takes them (``cmd:`` is
followed by the command, verbatim: ``cmd:python my_bot.py``), read strictly by
:mod:`.specs`: each option once, one the agent takes, with a value it takes (a refusal
names the option and what it takes); an agent of one's own joins with
:func:`register_agent`.
"""

from __future__ import annotations

from collections.abc import Callable

from uno_env.engine import Game, RuleConfig

from .base import Agent, AgentProtocol, CompiledAgent, as_game, hash_seed
from .human import HumanAgent
from .ismcts import ISMCTSAgent, make_ppo_search
from .ppo import NetworkAgent, make_ppo
from .program import ProgramAgent
from .specs import spec_text, split_spec
from .text import TextAgent, text_agent

COMPILED = ("random", "naive", "keeper", "tactical", "random_play", "tactical_v1")
"""The agents that are a compiled policy by the same name (``policies.POLICY_IDS``)."""


def _compiled(name: str) -> Callable[..., Agent]:
    def factory(rules=None, seed: int = 0, **options) -> Agent:
        if options:
            raise ValueError(f"agent {name!r} takes no options, got {', '.join(sorted(options))}")
        return CompiledAgent(name, rules, seed)

    factory.__name__ = f"make_{name}"
    return factory


_BUILTIN: dict[str, Callable[..., Agent]] = {name: _compiled(name) for name in COMPILED if name != "tactical_v1"}
_BUILTIN["ismcts"] = ISMCTSAgent
_BUILTIN["ppo"] = make_ppo
_BUILTIN["ppo_search"] = make_ppo_search
_BUILTIN["tactical_v1"] = _compiled("tactical_v1")  # listed after the agents one would pick first
_BUILTIN["human"] = HumanAgent
_BUILTIN["cmd"] = ProgramAgent
_REGISTRY: dict[str, Callable[..., Agent]] = dict(_BUILTIN)
_DESCRIPTIONS: dict[str, str] = {
    "random": "uniform over the legal actions",
    "naive": "the first legal card in action order; calls UNO, never catches or challenges",
    "keeper": "colour keeper: plays the colour it holds most, keeps its wilds for last, never bluffs",
    "tactical": "scored plays, attacks a player close to going out, challenges and bluffs by estimated odds",
    "tactical_v1": "tactical before it weighed the house rules in its card choices (the same with them off)",
    "random_play": "a random playable card, draws only when it must (the random player of other benchmarks)",
    "ismcts": "determinized search over rollouts (ismcts:determinizations=N, rollout=P, opponent_rollout=P)",
    "ppo": "trained policy networks, one per table (2, 3, 4 and 6 players, partners; hands and whole games), "
    "one pass a decision where distilled from their average over the colours, else averaged "
    "(ppo:weights=PATH, ppo:colours=average|as_seen)",
    "ppo_search": "ismcts on top of ppo: ppo at every seat of the rollouts, its choice unless the search "
    "finds a better one (ppo_search:determinizations=N; the other ismcts options)",
    "human": "a person at the terminal (uno play)",
    "cmd": "any program speaking the agent protocol (docs/PROTOCOL.md): cmd:COMMAND, "
    "e.g. 'cmd:python examples/bots/random_bot.py'",
}


def agent_names() -> list[str]:
    """Names known to :func:`make_agent`, built-in ones first."""
    return list(_REGISTRY)


def agent_descriptions() -> dict[str, str]:
    """Per name known to :func:`make_agent`, a one-line description (``uno tournament --help``)."""
    return {name: _DESCRIPTIONS.get(name, "") for name in _REGISTRY}


def register_agent(name: str, factory: Callable[..., Agent], description: str | None = None) -> None:
    """Make ``factory(rules, seed, **options) -> Agent`` known as ``name``. Tournaments
    with worker processes pickle the factory, so it must be importable (a module-level
    class or function). ``description``: one line for the listings (default: the first
    line of the factory's docstring)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"an agent name must be an identifier, got {name!r}")
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is a built-in agent")
    if not callable(factory):
        raise TypeError(
            f"register_agent({name!r}): factory must be callable as factory(rules, seed, **options) -> Agent, "
            f"got {factory!r}"
        )
    if description is not None and (not isinstance(description, str) or "\n" in description):
        raise ValueError(f"an agent's description must be one line of text, got {description!r}")
    _REGISTRY[name] = factory
    if description is None:
        description = next(iter((factory.__doc__ or "").strip().splitlines()), "")
    _DESCRIPTIONS[name] = description


def registered_extras() -> dict[str, Callable[..., Agent]]:
    """The agents added by :func:`register_agent` (handed to worker processes)."""
    return {name: f for name, f in _REGISTRY.items() if name not in _BUILTIN}


def parse_agent_spec(spec: str) -> tuple[str, dict]:
    """``"ismcts:determinizations=64"`` -> ``("ismcts", {"determinizations": 64})``;
    ``"cmd:python bot.py"`` -> ``("cmd", {"command": "python bot.py"})``. Strict
    (:mod:`.specs`): an option given twice, one the agent does not take or a value
    outside what it takes is a ValueError naming the option and what it takes."""
    return split_spec(spec, _REGISTRY.__contains__, agent_names)


def make_agent(name: str, config: RuleConfig | Game | None = None, seed: int = 0, **options) -> Agent:
    """An agent by name (or spec with options, see :func:`parse_agent_spec`) for the rules
    ``config`` (a RuleConfig or a Game), seeded with ``seed``. What the factory raises
    comes out naming the agent (a ValueError stays one; other errors are chained to a
    RuntimeError)."""
    base, spec_options = parse_agent_spec(name)
    factory = _REGISTRY[base]
    try:
        return factory(config, seed, **{**spec_options, **options})
    except TypeError as err:
        raise ValueError(f"agent {base!r}: bad options {sorted({**spec_options, **options})}: {err}") from None
    except ValueError as err:
        if str(err).startswith(f"{base}:") or repr(base) in str(err):  # it names the agent already
            raise
        raise ValueError(f"agent {base!r}: {err}") from err
    except Exception as err:
        raise RuntimeError(f"agent {base!r}: its factory {factory!r} raised {type(err).__name__}: {err}") from err


__all__ = [
    "Agent",
    "AgentProtocol",
    "CompiledAgent",
    "HumanAgent",
    "ISMCTSAgent",
    "NetworkAgent",
    "ProgramAgent",
    "TextAgent",
    "agent_descriptions",
    "agent_names",
    "as_game",
    "hash_seed",
    "make_agent",
    "parse_agent_spec",
    "register_agent",
    "spec_text",
    "text_agent",
]
