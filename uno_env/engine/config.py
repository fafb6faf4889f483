"""The rule configuration: one frozen dataclass for every setting of the engine."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from dataclasses import dataclass

from .cards import DECKS
from .named import PHASE_DECISIONS, Episode, IllegalAction, Phase, Reward, Scoring, Stacking, UnoCall, names

SCORINGS = names(Scoring)
STACKINGS = names(Stacking)
UNO_CALLS = names(UnoCall)
ILLEGAL_ACTIONS = names(IllegalAction)
EPISODES = names(Episode)
REWARDS = names(Reward)
MIN_PLAYERS = 2
MAX_PLAYERS = 10
MAX_STEPS_LIMIT = 2**31 - 1
MAX_TARGET_SCORE = 10**8


def setting(default, *, choices=None, house=None, decides=None, low=None, high=None):
    """A field of :class:`RuleConfig`, declared once: its default, and what the rest of the
    project derives from it (validation, the kernels' parameter vector, the house-rule
    lists, the docs). ``choices``: the named values (a setting's code in the kernels is its
    value's index; an ``IntEnum`` of ``named.py`` gives them, in code order); ``house``: the
    words of a house rule of HOUSE_RULES.md (``uno play``'s header), None for the rules of
    RULES.md; ``decides``: the name of the phase (``named.Phase``) the rule brings, a
    decision declared in ``named.PHASE_DECISIONS``; ``low``/``high``: an integer's bounds.
    Its docstring, the string after it, is its row of the settings tables."""
    metadata = {"choices": choices, "house": house, "decides": decides, "low": low, "high": high}
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True, repr=False)
class RuleConfig:
    """Every setting of the rules engine. Invalid values raise ``ValueError`` naming the setting.

    The defaults are the default ruleset of RULES.md: classic 108-card deck,
    standard scoring to 500, UNO calls with a catch window, a wrong card is
    taken back with a 2-card penalty, and an episode is a whole game.
    """

    num_players: int = setting(2, low=MIN_PLAYERS, high=MAX_PLAYERS)
    """Players at the table, 2 to 10 (R-DECK-4)."""
    deck: str = setting("classic", choices=DECKS)
    """``"classic"`` (108 cards) or ``"fashion_trend"`` (112 cards, R-VAR-FASHION)."""
    partners: bool = setting(False)
    """Partners sit across the table and score as a team (R-VAR-PARTNERS); even n >= 4. Seat s's
    partner is seat (s + n/2) % n: entry n/2 of the per-seat observation fields."""
    scoring: str = setting("standard", choices=SCORINGS)
    """``"standard"`` (R-SCORE), ``"alternative"`` (R-VAR-ALT) or ``"challenge"`` (R-VAR-CHALLENGE)."""
    target_score: int = setting(500, low=1, high=MAX_TARGET_SCORE)
    """Score that ends the game (R-SCORE-2)."""
    uno_call: str = setting("window", choices=UNO_CALLS)
    """``"window"`` (others may catch), ``"auto"`` (always caught) or ``"off"`` (R-UNO-4)."""
    illegal_action: str = setting("penalty", choices=ILLEGAL_ACTIONS)
    """``"penalty"``: a held card that does not match is taken back, the player draws 2
    and the turn passes (R-WRONG-1), other unavailable actions raise; ``"raise"``: every
    unavailable action raises and nothing changes; ``"lose"``: any unavailable action
    ends the game, -1 to the offender (PettingZoo's classic behaviour)."""
    episode: str = setting("game", choices=EPISODES)
    """``"game"`` (rounds until the target score) or ``"round"`` (a single round)."""
    reward: str = setting("win", choices=REWARDS)
    """``"win"``: +1 to each winner and -1 to each loser when the game ends; ``"points"``:
    at each round end, points scored (standard) or minus points taken (alternative,
    challenge)."""
    max_steps: int = setting(20_000, low=1, high=MAX_STEPS_LIMIT)
    """Decisions per episode after which it is truncated, so that no game runs forever."""
    stacking: str = setting("off", choices=STACKINGS, house="stacking", decides="penalty")
    """House rule (R-HOUSE-STACK): ``"off"``; ``"same"``: a Draw Two answers a Draw Two and a
    Wild Draw Four a Wild Draw Four, passing the pending penalty on; ``"mixed"``: also a Wild
    Draw Four on a Draw Two, and a Draw Two on a Wild Draw Four in its named colour."""
    seven_o: bool = setting(False, house="seven-O", decides="swap")
    """House rule (R-HOUSE-SEVENO): a 7 swaps hands with a player of its player's choice, a 0
    passes every hand to the next player in the direction of play."""
    jump_in: bool = setting(False, house="jump-in", decides="jump")
    """House rule (R-HOUSE-JUMP): a player holding the identical card (same colour and rank)
    may play it out of turn, once the played card's effect is resolved."""
    draw_until_playable: bool = setting(False, house="draw until playable")
    """House rule (R-HOUSE-DRAW): a player who draws on a normal turn keeps drawing until a
    drawn card can be played (penalty draws stay exact)."""
    force_play: bool = setting(False, house="force play")
    """House rule (R-HOUSE-FORCE): a playable card drawn on a normal turn must be played."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            self._check(field)
        self._check_partners()

    def _bad(self, name: str, expected: str) -> ValueError:
        return ValueError(f"invalid setting {name}={getattr(self, name)!r}: expected {expected}")

    def _check(self, field: dataclasses.Field) -> None:
        """One setting against its declaration: a named value, a switch, or a bounded integer."""
        value, spec = getattr(self, field.name), field.metadata
        if spec["choices"] is not None:
            if value not in spec["choices"]:
                raise self._bad(field.name, "one of " + ", ".join(repr(a) for a in spec["choices"]))
        elif isinstance(field.default, bool):
            if not isinstance(value, bool):
                raise self._bad(field.name, "True or False")
        else:
            low, high = spec["low"], spec["high"]
            expected = "a positive integer" if low == 1 else f"an integer from {low} to {high}"
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise self._bad(field.name, expected)
            if value > high:
                raise self._bad(field.name, "a smaller value" if low == 1 else expected)

    def _check_partners(self) -> None:
        if self.partners and (self.num_players < 4 or self.num_players % 2):
            raise ValueError(
                f"invalid setting partners=True with num_players={self.num_players}: "
                "partners need an even number of players, at least 4"
            )
        if self.partners and self.scoring != "standard":
            raise ValueError(
                f"invalid setting scoring={self.scoring!r} with partners=True: partners "
                "combine only with standard scoring (D-VARIANTS)"
            )

    def __repr__(self) -> str:
        """Every setting of RULES.md, then the house rules that are on (so a classic
        configuration reads as it did before the house rules existed)."""
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in dataclasses.fields(self)
            if f.metadata["house"] is None or getattr(self, f.name) != f.default
        ]
        return f"RuleConfig({', '.join(shown)})"

    def in_words(self) -> str:
        """The settings as a person reads them (``uno play``'s header), e.g. "2 players, a
        whole game to 500 points, classic deck (108 cards), standard scoring, ..."."""
        deck = {"classic": "classic deck (108 cards)", "fashion_trend": "Fashion Trend deck (112 cards)"}
        scoring = {"standard": "standard scoring", "alternative": "alternative scoring"}
        uno = {
            "window": "a forgotten UNO call can be caught",
            "auto": "a forgotten UNO call is always caught",
            "off": "no UNO calls",
        }
        illegal = {
            "penalty": "a wrong card is taken back with a 2-card penalty",
            "raise": "unavailable actions are refused",
            "lose": "an unavailable action loses the game",
        }
        parts = [f"{self.num_players} players" + (", partners across the table" if self.partners else "")]
        parts.append("one hand" if self.episode == "round" else f"a whole game to {self.target_score} points")
        parts.append(deck.get(self.deck, f"{self.deck} deck"))
        parts.append(scoring.get(self.scoring, "Challenge UNO scoring (a player reaching the target score is out)"))
        parts += [uno[self.uno_call], illegal[self.illegal_action]]
        house = [
            f.metadata["house"] + ("" if isinstance(f.default, bool) else f" ({getattr(self, f.name)})")
            for f in self._house_rules_on()
        ]
        parts.append("house rules: " + ", ".join(house) if house else "no house rules")
        if self.max_steps != RuleConfig.max_steps:
            parts.append(f"cut after {self.max_steps} decisions")
        return ", ".join(parts)

    @property
    def house_rules(self) -> bool:
        """Any house rule of HOUSE_RULES.md is on."""
        return bool(self._house_rules_on())

    def _house_rules_on(self) -> list[dataclasses.Field]:
        house = [f for f in dataclasses.fields(self) if f.metadata["house"] is not None]
        return [f for f in house if getattr(self, f.name) != f.default]

    def asks(self, phase) -> bool:
        """Whether the game can ask decision ``phase``: a classic one always, a house rule's
        while the setting that brings it is on."""
        setting = HOUSE_PHASES.get(int(phase))
        return setting is None or getattr(self, setting) != self.__dataclass_fields__[setting].default

    def codes(self) -> dict[str, int]:
        """Each setting as the kernels read it (its entry of the parameter vector): an integer
        as it is, a switch as 0 or 1, a named value as its index among the choices."""
        return {
            f.name: f.metadata["choices"].index(getattr(self, f.name))
            if f.metadata["choices"] is not None
            else int(getattr(self, f.name))
            for f in dataclasses.fields(self)
        }

    @property
    def num_teams(self) -> int:
        return self.num_players // 2 if self.partners else self.num_players

    def partner_of(self, seat):
        """The seat's partner, across the table (R-VAR-PARTNERS); the seat itself without
        partners. Seats may be an integer array (elementwise)."""
        return (seat + self.num_players // 2) % self.num_players if self.partners else seat

    def replace(self, **changes) -> RuleConfig:
        """A copy with some settings changed (validated again)."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_kwargs(cls, **settings) -> RuleConfig:
        """Build from keyword settings, naming any unknown one."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(settings) - known)
        if unknown:
            raise ValueError(f"unknown setting(s) {', '.join(unknown)}: known settings are {', '.join(sorted(known))}")
        return cls(**settings)


SETTINGS = tuple(dataclasses.fields(RuleConfig))
"""The settings, in declaration order (the order of the parameter vector and the docs' tables)."""
HOUSE_RULE_SETTINGS = tuple(f.name for f in SETTINGS if f.metadata["house"] is not None)
"""The house rules of HOUSE_RULES.md, off by default."""
HOUSE_SWITCHES = tuple(f.name for f in SETTINGS if f.name in HOUSE_RULE_SETTINGS and isinstance(f.default, bool))
"""The house rules that are switches (on or off); the others have named values."""
HOUSE_WORDS = {f.name: f.metadata["house"] for f in SETTINGS if f.name in HOUSE_RULE_SETTINGS}
CHOICES = {f.name: f.metadata["choices"] for f in SETTINGS if f.metadata["choices"] is not None}
"""The settings with named values, and their values."""
HOUSE_PHASES = dict(
    sorted((int(Phase[f.metadata["decides"].upper()]), f.name) for f in SETTINGS if f.metadata["decides"] is not None)
)
"""The house rules' phases (their codes, in order) and the setting that brings each."""
if sorted(HOUSE_PHASES) != [int(p) for p, d in PHASE_DECISIONS.items() if d.house]:  # pragma: no cover
    raise ImportError("each house phase of named.PHASE_DECISIONS needs one setting that decides it")


def house_rules_on() -> dict[str, object]:
    """Every house rule on, each at its last value (a switch True, stacking ``"mixed"``)."""
    return {name: True if name in HOUSE_SWITCHES else CHOICES[name][-1] for name in HOUSE_RULE_SETTINGS}


def setting_docs() -> list[tuple[str, object, str]]:
    """(name, default, description) of every setting, from the dataclass itself."""
    source = textwrap.dedent(inspect.getsource(RuleConfig))
    tree = ast.parse(source)
    docs: dict[str, str] = {}
    class_def = tree.body[0]
    assert isinstance(class_def, ast.ClassDef)
    body = class_def.body
    for node, following in zip(body, body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = " ".join(following.value.value.split())
    return [(f.name, f.default, docs.get(f.name, "")) for f in dataclasses.fields(RuleConfig)]
