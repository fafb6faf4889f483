"""Decisions in words, for language agents: :func:`decision_text` and :func:`text_agent`.

>>> from uno_env.agents import make_agent
>>> from uno_env.agents.text import text_agent
>>> from uno_env.engine import Game
>>> game = Game(num_players=2, episode="round")
>>> agent = text_agent(lambda prompt: "1", game)  # any function text -> text: a model, a person...
>>> state = game.init(seed=3)
>>> _ = game.play(state, [agent, make_agent("tactical", game)])
>>> bool(game.is_over(state)), agent.decisions > 0, agent.fallbacks
(True, True, 0)

:func:`decision_text` says what a seat may know at a decision, from its observation (the
named fields of :meth:`uno_env.engine.ObservationSpec.to_dict`) and the events it saw since
its last turn: the rules, what happened, the top card and colour, every seat's card count
(and the scores in whole games), its hand, what it must decide, and the legal moves,
numbered. :func:`text_agent` turns a function ``text -> text`` into an agent: the answer is
read leniently (:func:`parse_answer`); one that names no single legal move is asked again
once, with a short correction; then the agent takes its stated fallback (the first legal
move, or a random one) and counts it (:attr:`TextAgent.fallbacks`, :attr:`TextAgent.log`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from uno_env.engine import Game, RuleConfig
from uno_env.engine.cards import COLOUR_NAMES, COLOURS, WILD, card_to_str, parse_card, parse_colour
from uno_env.engine.events import summarize
from uno_env.engine.seeding import seed_to_rng

from .following import FollowingAgent
from .human import PHASE_PROMPTS

LEGEND = (
    "Cards: R, Y, G, B are red, yellow, green, blue; 0-9 numbers, S skip, R reverse, +2 draw two; "
    "W wild, W+4 wild draw four."
)
"""The card notation, as the decision text says it (:func:`legend`)."""


def legend(config: RuleConfig) -> str:
    """:data:`LEGEND`, with ``FT`` only where the deck has the Fashion Trend."""
    return LEGEND[:-1] + ", FT fashion trend." if config.deck == "fashion_trend" else LEGEND


FALLBACKS = ("first", "random")
"""What :class:`TextAgent` plays after two answers it cannot read: the first legal move, or a random one."""


def _cards(counts) -> list[str]:
    return [card_to_str(f) for f in range(len(counts)) for _ in range(int(counts[f]))]


def _one(values) -> int | None:
    values = np.asarray(values)
    return int(np.argmax(values)) if values.any() else None


def decision_text(game: Game, observation, mask, events: Sequence[dict] = (), seat: int | None = None) -> str:
    """The decision of the seat whose ``observation`` and legal ``mask`` these are, in words;
    ``events``: what it saw since its last turn (already as it saw them); ``seat``: its
    absolute seat, so that players are named as in the events (``P2``); without it they are
    named from the seat (``seat+1``: the next one clockwise)."""
    view = game.obs_spec.to_dict(np.asarray(observation, dtype=np.float32))
    config, n = game.config, game.num_players
    who = _Names(seat, n)
    lines = [f"You play UNO as {who(0)}. Rules: {config.in_words()}.", legend(config)]
    happened = summarize(events)
    if happened:
        lines.append("Since your last turn:")
        lines += [f"- {line}" for line in happened]
    lines.append(_table_line(view, who, n))
    lines.append("Cards held: " + ", ".join(_held(view, config, who, r, n) for r in range(n)) + ".")
    if config.episode == "game" or view["scores"].any():
        lines.append(
            f"Scores (game to {config.target_score}): "
            + ", ".join(f"{who(r)} {int(view['scores'][r])}" for r in range(n))
        )
    lines.append(f"Your hand: {' '.join(_cards(view['hand'])) or '(empty)'}.")
    lines += _own_facts(view, who) + _house_facts(view, who)
    return "\n".join(lines + _decision_lines(game, view, mask))


class _Names:
    """Names a seat relative to the observer: ``P2 (you)`` from its absolute ``seat``, else ``you``, ``seat+1``."""

    def __init__(self, seat: int | None, num_players: int):
        self.seat, self.n = seat, num_players

    def __call__(self, relative: int) -> str:
        if self.seat is None:
            return "you" if relative == 0 else f"seat+{relative}"
        return f"P{(self.seat + relative) % self.n}" + (" (you)" if relative == 0 else "")


def _table_line(view: dict, who: _Names, n: int) -> str:
    """The top card, the colour to match and the direction of play."""
    top, colour = _one(view["top_card"]), _one(view["colour"])
    step = 1 if view["direction"][0] >= 0 else -1
    following = next((r for k in range(1, n) if view["alive"][(r := (k * step) % n)] > 0), 0)
    return (
        f"Top card: {card_to_str(top) if top is not None else 'none'}. "
        f"Colour to match: {COLOUR_NAMES[colour] if colour is not None else 'not named yet'}. "
        f"Play goes {'clockwise' if step > 0 else 'counter-clockwise'}; next after you: {who(following)}."
    )


def _held(view: dict, config: RuleConfig, who: _Names, r: int, n: int) -> str:
    """How many cards the seat ``r`` (relative) holds, and what sets it apart."""
    size = int(view["hand_sizes"][r])
    marks = [] if view["alive"][r] else ["out of the game"]
    marks += ["did not call UNO"] if view["exposed"][r] else []
    marks += ["your partner"] if config.partners and r == n // 2 else []
    return f"{who(r)} {size} card{'s' if size != 1 else ''}" + (f" ({', '.join(marks)})" if marks else "")


def _decision_lines(game: Game, view: dict, mask) -> list[str]:
    """What the seat must decide, and the legal moves, numbered from 1."""
    phase = game.obs_spec.by_name["phase"].labels[int(np.argmax(view["phase"]))]
    legal = np.flatnonzero(np.asarray(mask)).tolist()
    return [
        f"Decision: {PHASE_PROMPTS.get(phase, phase).replace('your turn: ', 'your turn, ')}.",
        "Legal moves:",
        *[f"{k}. {game.actions.strings[a]}" for k, a in enumerate(legal, start=1)],
        "Answer with the number of one legal move.",
    ]


def _own_facts(view: dict, who: Callable[[int], str]) -> list[str]:
    """The lines of what the seat itself drew, called or was shown (a challenge's reveal)."""
    lines = []
    drawn = _one(view["drawn_card"])
    if drawn is not None:
        lines.append(f"You just drew {card_to_str(drawn)}.")
    if view["uno_called"][0]:
        lines.append("You have called UNO this turn.")
    owner = _one(view["challenge_reveal_seat"])
    if owner is not None:
        lines.append(f"{who(owner)} showed you its hand (challenge): {' '.join(_cards(view['challenge_reveal']))}.")
    return lines


def _shows(view: dict, field: str) -> bool:
    """Whether the observation has the (house rule's) field, and something in it."""
    return field in view and bool(view[field].any())


def _house_facts(view: dict, who: Callable[[int], str]) -> list[str]:
    """The lines of what the house rules' fields show (a pending penalty, a swap...)."""
    lines = []
    if "pending_penalty" in view and view["pending_penalty"][0] > 0:
        lines.append(f"A draw penalty of {int(view['pending_penalty'][0])} cards is pending.")
    if _shows(view, "last_swap"):
        pair = [who(int(r)) for r in np.flatnonzero(view["last_swap"])]
        lines.append(f"Last 7 swap: {' and '.join(pair)}.")
    if _shows(view, "next_turn"):
        lines.append(f"Then it is {who(int(np.argmax(view['next_turn'])))}'s turn.")
    if _shows(view, "trend_colour"):
        lines += _trend_facts(view, who)
    return lines


def _trend_facts(view: dict, who: Callable[[int], str]) -> list[str]:
    """The cards shown to the seat for its Fashion Trend (none: no line)."""
    trend = COLOURS[int(np.argmax(view["trend_colour"]))]
    shown = [
        f"{who(r)} {card_to_str(parse_card(trend + '0') + k)}"
        for r in range(len(view["trend_shown"]))
        for k in np.flatnonzero(view["trend_shown"][r]).tolist()
    ]
    return [f"Shown to you for your Fashion Trend: {', '.join(shown)}."] if shown else []


# ---------------------------------------------------------------------- reading answers

_CARD = re.compile(r"(?<![\w+])(W\+4|FT|W|[RYGB](?:\+2|[0-9SR]))(?![\w+])", re.IGNORECASE)
_COLOUR = re.compile(r"\b(red|yellow|green|blue|[RYGB])\b", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w+.])(\d+)(?![\w+]|\.\d)")


def _mentioned(text: str, game: Game, legal: list[int]) -> list[int]:
    """The legal actions ``text`` names, by their text or by their card (a wild with the colour
    that follows it), in the order they first appear."""
    found: dict[int, int] = {}
    for a in legal:
        hit = re.search(r"(?<![\w+])" + re.escape(game.actions.strings[a]) + r"(?![\w+])", text, re.IGNORECASE)
        if hit:
            found.setdefault(a, hit.start())
    plays = {game.actions.strings[a]: a for a in legal if game.actions.strings[a].startswith("play ")}
    for hit in _CARD.finditer(text):
        face = parse_card(hit.group(1))
        if face >= WILD:
            named = _COLOUR.search(text, hit.end())
            if named is None:
                continue
            key = f"play {card_to_str(face)} {COLOURS[parse_colour(named.group(1))]}"
        else:
            key = f"play {card_to_str(face)}"
        if key in plays:
            found.setdefault(plays[key], hit.start())
    return sorted(found, key=found.__getitem__)


def parse_answer(answer, game: Game, legal: Sequence[int]) -> tuple[int | None, str]:
    """``(action, "")`` for an answer naming exactly one of the ``legal`` action ids (numbered
    from 1 as :func:`decision_text` lists them): its number alone, the move as written or a bare
    card (``R7``, ``W green``), in any case, among other words; on several lines, the last line
    that names one decides. Otherwise ``(None, why)``."""
    legal = list(legal)
    if not isinstance(answer, str):
        return None, f"the answer must be text, got {type(answer).__name__}"
    lines = [line for line in answer.strip().splitlines() if line.strip()]
    readings = [answer, *reversed(lines)] if len(lines) > 1 else [answer]
    for text in readings:
        action = _one_named(text, game, legal)
        if action is not None:
            return action, ""
    named = _mentioned(answer, game, legal)
    if len(named) > 1:
        return None, f"it names several moves ({', '.join(game.actions.strings[a] for a in named)})"
    return None, "it names none of the legal moves"


def _one_named(text: str, game: Game, legal: list[int]) -> int | None:
    """The one legal action ``text`` names by its move or card, or else by its number alone."""
    named = _mentioned(text, game, legal)
    if len(named) == 1:
        return named[0]
    if not named:
        numbers = {int(m) for m in _NUMBER.findall(text)} & set(range(1, len(legal) + 1))
        if len(numbers) == 1:
            return legal[numbers.pop() - 1]
    return None


class TextAgent(FollowingAgent):
    """An agent that asks ``function(text) -> text`` at each decision (see the module docstring)."""

    name = "text"

    def __init__(
        self,
        function: Callable[[str], str],
        rules: RuleConfig | Game | None = None,
        seed: int = 0,
        fallback: str = "first",
    ):
        if not callable(function):
            raise ValueError(f"text_agent: function must be callable (text -> text), got {function!r}")
        if fallback not in FALLBACKS:
            raise ValueError(f"text_agent: fallback={fallback!r}: expected one of {', '.join(FALLBACKS)}")
        self.function = function
        self.fallback = fallback
        self.decisions = 0
        self.retries = 0
        """Decisions that needed the second question."""
        self.fallbacks = 0
        """Decisions where neither answer named one legal move: the fallback was played."""
        self.log: list[dict] = []
        """Each fallback: the decision's prompts, the two answers and the move played."""
        super().__init__(rules, seed)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rng = np.random.default_rng(seed_to_rng(self.seed))

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal_mask = self.check(observation, mask)
        if self.starting:
            self.begin(None)
        legal = np.flatnonzero(legal_mask).tolist()
        prompt = decision_text(self.game, obs, legal_mask, self.take_events(), self.seat)
        self.decisions += 1
        answer = self.function(prompt)
        action, why = parse_answer(answer, self.game, legal)
        if action is not None:
            return action
        self.retries += 1
        again = (
            f"{prompt}\n\nYour answer {_quote(answer)} could not be used: {why}. "
            f"Answer with one number from 1 to {len(legal)}."
        )
        second = self.function(again)
        action, _ = parse_answer(second, self.game, legal)
        if action is not None:
            return action
        self.fallbacks += 1
        action = legal[0] if self.fallback == "first" else int(self._rng.choice(legal))
        self.log.append({"prompts": [prompt, again], "answers": [answer, second], "played": action})
        return action


def _quote(answer) -> str:
    text = answer if isinstance(answer, str) else repr(answer)
    return repr(text if len(text) <= 200 else text[:197] + "...")


def text_agent(
    function: Callable[[str], str], rules: RuleConfig | Game | None = None, seed: int = 0, fallback: str = "first"
) -> TextAgent:
    """An agent that plays by asking ``function`` (text -> text) each decision in words
    (see the module docstring); ``fallback``: ``"first"`` or ``"random"``."""
    return TextAgent(function, rules, seed, fallback)


__all__ = ["FALLBACKS", "LEGEND", "TextAgent", "decision_text", "legend", "parse_answer", "text_agent"]
