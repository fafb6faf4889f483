"""Agent specs, ``name:key=value:key=value``, read strictly.

The options of the built-in agents follow a grammar (:data:`GRAMMAR`): each option is
given at most once, is one the agent takes, and its value is what the option takes (a
positive integer, a number within a range, a name among a few). A refusal is a
ValueError that names the agent, the option and what it takes, e.g. ``agent 'ismcts':
bluff_prior='abc': expected a number within 0..1``. An agent added with
``register_agent`` has no grammar here: its values are read as booleans, integers,
numbers or text, and its factory checks them. :func:`spec_text` writes a spec back from
its checked parts (the name a seat shows).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .policies.dispatch import POLICY_IDS
from .ppo import COLOUR_ALIASES, COLOURS
from .program import parse_program_spec


def positive_integer(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise ValueError
    return int(text)


def number_within(low: float, high: float) -> Callable[[str], float]:
    def read(text: str) -> float:
        value = float(text) if text.isascii() else math.nan
        if not low <= value <= high:  # nan too
            raise ValueError
        return value

    return read


def one_of(*names: str) -> Callable[[str], str]:
    def read(text: str) -> str:
        if text not in names:
            raise ValueError
        return text

    return read


def path(text: str) -> str:
    if not text:
        raise ValueError
    return text


ROLLOUTS = tuple(sorted(POLICY_IDS))
SEARCH: dict[str, tuple[Callable[[str], Any], str]] = {
    "determinizations": (positive_integer, "a positive integer"),
    "max_rollout_steps": (positive_integer, "a positive integer"),
    "rollout": (one_of(*ROLLOUTS), f"a compiled policy: {', '.join(ROLLOUTS)}"),
    "opponent_rollout": (one_of(*ROLLOUTS), f"a compiled policy: {', '.join(ROLLOUTS)}"),
    "bluff_prior": (number_within(0.0, 1.0), "a number within 0..1"),
    "confidence": (number_within(0.0, math.inf), "a number >= 0"),
    "draw_inference": (number_within(0.0, 1.0), "a number within 0..1"),
}
GRAMMAR: dict[str, dict[str, tuple[Callable[[str], Any], str]]] = {
    "random": {},
    "naive": {},
    "keeper": {},
    "tactical": {},
    "random_play": {},
    "ismcts": SEARCH,
    "ppo_search": SEARCH,
    "ppo": {
        "weights": (path, "a network file's path"),
        "colours": (one_of(*COLOURS, *COLOUR_ALIASES), f"{' or '.join(COLOURS)}"),
    },
}
"""Per built-in agent, its options: (reader of the text, what the option takes)."""


def loose_value(text: str):
    """An option's value for an agent without a grammar: a boolean, an integer, a number or the text."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_options(name: str, spec: str, parts: list[str]) -> dict:
    """The options of ``name`` from its ``key=value`` parts, checked by :data:`GRAMMAR` where it has the agent."""
    grammar = GRAMMAR.get(name)
    options: dict[str, Any] = {}
    for part in parts:
        key, sep, text = part.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"agent spec {spec!r}: expected options as key=value after the name, got {part!r}")
        if key in options:
            raise ValueError(f"agent {name!r}: option {key!r} is given twice; give each option once")
        if grammar is None:
            options[key] = loose_value(text)
            continue
        if not grammar:
            raise ValueError(f"agent {name!r} takes no options, got {key!r}")
        if key not in grammar:
            raise ValueError(f"agent {name!r}: unknown option {key!r}; its options: {', '.join(grammar)}")
        read, what = grammar[key]
        try:
            options[key] = read(text)
        except ValueError:
            raise ValueError(f"agent {name!r}: {key}={text!r}: expected {what}") from None
    return options


def split_spec(spec: str, known: Callable[[str], bool], names: Callable[[], list[str]]) -> tuple[str, dict]:
    """``"ismcts:determinizations=64"`` -> ``("ismcts", {"determinizations": 64})``;
    ``"cmd:python bot.py"`` -> ``("cmd", {"command": "python bot.py"})``; ``known``: whether
    a name is an agent, ``names``: the known ones (for the refusal)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent spec must be a name such as 'tactical', got {spec!r}")
    if spec.strip().startswith("cmd:"):  # the rest is a command: spaces, colons and '=' included
        return "cmd", parse_program_spec(spec.strip()[len("cmd:") :])
    name, *parts = spec.strip().split(":")
    if not known(name):
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}")
    return name, parse_options(name, spec, parts)


def spec_text(name: str, options: dict) -> str:
    """The spec of ``name`` with ``options`` (checked values), in the order given: ``ismcts:determinizations=64``."""
    return name + "".join(f":{key}={value}" for key, value in options.items())


__all__ = ["GRAMMAR", "parse_options", "spec_text", "split_spec"]
