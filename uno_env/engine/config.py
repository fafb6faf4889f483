"""The rule configuration: one frozen dataclass for every setting of the engine."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .cards import DECKS
from .named import Episode, IllegalAction, Reward, Scoring, UnoCall, names

SCORINGS = names(Scoring)
UNO_CALLS = names(UnoCall)
ILLEGAL_ACTIONS = names(IllegalAction)
EPISODES = names(Episode)
REWARDS = names(Reward)
MIN_PLAYERS = 2
MAX_PLAYERS = 10


@dataclass(frozen=True)
class RuleConfig:
    """Every setting of the rules engine. Invalid values raise ``ValueError`` naming the setting.

    The defaults are the default ruleset of RULES.md: classic 108-card deck,
    standard scoring to 500, UNO calls with a catch window, a wrong card is
    taken back with a 2-card penalty, and an episode is a whole game.
    """

    num_players: int = 2
    """Players at the table, 2 to 10 (R-DECK-4)."""
    deck: str = "classic"
    """``"classic"`` (108 cards) or ``"fashion_trend"`` (112 cards, R-VAR-FASHION)."""
    partners: bool = False
    """Partners sit across the table and score as a team (R-VAR-PARTNERS); even n >= 4."""
    scoring: str = "standard"
    """``"standard"`` (R-SCORE), ``"alternative"`` (R-VAR-ALT) or ``"challenge"`` (R-VAR-CHALLENGE)."""
    target_score: int = 500
    """Score that ends the game (R-SCORE-2)."""
    uno_call: str = "window"
    """``"window"`` (others may catch), ``"auto"`` (always caught) or ``"off"`` (R-UNO-4)."""
    illegal_action: str = "penalty"
    """``"penalty"``: a held card that does not match is taken back, the player draws 2
    and the turn passes (R-WRONG-1), other unavailable actions raise; ``"raise"``: every
    unavailable action raises and nothing changes; ``"lose"``: any unavailable action
    ends the game, -1 to the offender (PettingZoo's classic behaviour)."""
    episode: str = "game"
    """``"game"`` (rounds until the target score) or ``"round"`` (a single round)."""
    reward: str = "win"
    """``"win"``: +1 to each winner and -1 to each loser when the game ends; ``"points"``:
    at each round end, points scored (standard) or minus points taken (alternative,
    challenge)."""
    max_steps: int = 20_000
    """Decisions per episode after which it is truncated, so that no game runs forever."""

    def __post_init__(self) -> None:
        def bad(name: str, expected: str) -> ValueError:
            return ValueError(f"invalid setting {name}={getattr(self, name)!r}: expected {expected}")

        if (
            not isinstance(self.num_players, int)
            or isinstance(self.num_players, bool)
            or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS
        ):
            raise bad("num_players", f"an integer from {MIN_PLAYERS} to {MAX_PLAYERS}")
        for name, allowed in (
            ("deck", DECKS),
            ("scoring", SCORINGS),
            ("uno_call", UNO_CALLS),
            ("illegal_action", ILLEGAL_ACTIONS),
            ("episode", EPISODES),
            ("reward", REWARDS),
        ):
            if getattr(self, name) not in allowed:
                raise bad(name, "one of " + ", ".join(repr(a) for a in allowed))
        if not isinstance(self.partners, bool):
            raise bad("partners", "True or False")
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
        for name in ("target_score", "max_steps"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise bad(name, "a positive integer")
        if self.max_steps > 2**31 - 1 or self.target_score > 10**8:
            raise bad("max_steps" if self.max_steps > 2**31 - 1 else "target_score", "a smaller value")

    @property
    def num_teams(self) -> int:
        return self.num_players // 2 if self.partners else self.num_players

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


def setting_docs() -> list[tuple[str, object, str]]:
    """(name, default, description) of every setting, from the dataclass itself."""
    import ast
    import inspect
    import textwrap

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
