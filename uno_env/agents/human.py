"""A person at the terminal: the table as text, actions typed in the text notation.

The table is drawn from the person's own observation (so it shows exactly what
the seat may know: its own hand, the other hands as counts), plus the events
since its last decision as the game loop passes them in (:meth:`HumanAgent.notify`,
already filtered with :func:`uno_env.engine.events.visible_to`).

Input: an action text (``play R7``, ``play W G``, ``draw``, ``pass``, ``uno``,
``challenge``, ``accept``, ``catch``, ``color G``, ``swap 2`` under Seven-O), a bare card (``R7``, ``W G``)
for ``play``, or the number of an action in the ``help`` list. ``help`` lists the
legal actions, ``quit`` leaves. Anything else gets a message and a new prompt.
"""

from __future__ import annotations

import sys

import numpy as np

from uno_env.engine import Game, RuleConfig
from uno_env.engine.actions import VERBS
from uno_env.engine.cards import COLOUR_NAMES, RANKS_PER_COLOUR, card_to_str, parse_card
from uno_env.engine.named import PHASE_DECISIONS, PHASE_NAMES

from .base import Agent, as_game


class QuitGame(Exception):
    """The person typed ``quit`` (or the input ended)."""


PHASE_PROMPTS = {PHASE_NAMES[phase]: d.prompt for phase, d in PHASE_DECISIONS.items() if d.prompt is not None}
"""What a person is asked in each phase (``engine.named.PHASE_DECISIONS``)."""


class HumanAgent(Agent):
    """Asks a person for each decision (see the module docstring). ``seat`` is the
    absolute seat of the person, used to name the other players ``P<k>``."""

    name = "human"

    def __init__(self, rules: RuleConfig | Game | None = None, seed: int = 0, stdin=None, stdout=None, seat: int = 0):
        n = as_game(rules).num_players
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            raise ValueError(f"human: seat must be a seat 0..{n - 1}, got {seat!r}")
        if stdin is not None and not callable(getattr(stdin, "readline", None)):
            raise ValueError(f"human: stdin must be a text stream with readline() (None: the terminal), got {stdin!r}")
        if stdout is not None and not callable(getattr(stdout, "write", None)):
            raise ValueError(f"human: stdout must be a text stream with write() (None: the terminal), got {stdout!r}")
        self.stdin = stdin
        self.stdout = stdout
        self.seat = int(seat)
        self.recent: list[str] = []
        super().__init__(rules, seed)

    # ------------------------------------------------------------------ io
    def _in(self):
        return self.stdin if self.stdin is not None else sys.stdin

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout if self.stdout is not None else sys.stdout, flush=True)

    def prompt(self) -> None:
        print("> ", end="", file=self.stdout if self.stdout is not None else sys.stdout, flush=True)

    def notify(self, lines: list[str]) -> None:
        """Lines of what happened, shown with the next table."""
        self.recent.extend(lines)

    # ------------------------------------------------------------------ the table
    def seat_name(self, relative: int) -> str:
        absolute = (self.seat + relative) % self.game.num_players
        return f"P{absolute}" + (" (you)" if relative == 0 else "")

    def render(self, observation: np.ndarray) -> str:
        """The table as the person sees it: what happened since its last move, the top
        card and the seats, its hand and what it was shown, the house rules' public
        facts, and what it must decide."""
        view = self.game.obs_spec.to_dict(np.asarray(observation, dtype=np.float32))
        lines = []
        if self.recent:
            lines.append("since your last move:")
            lines += [f"  {line}" for line in self.recent[-14:]]
        lines.append("-" * 60)
        lines.append(self.pile_line(view))
        lines += [self.seat_line(view, r) for r in range(self.game.num_players)]
        lines += self.hand_lines(view)
        lines += self.house_lines(view)
        phase_name = self.game.obs_spec.by_name["phase"].labels[int(np.argmax(view["phase"]))]
        if view["uno_called"][0]:
            lines.append("you have called UNO this turn")
        lines.append(PHASE_PROMPTS.get(phase_name, phase_name) + "   (type 'help' for your options)")
        return "\n".join(lines)

    def pile_line(self, view: dict) -> str:
        """The top card, the colour in force, the direction of play (and who is next) and the draw pile."""
        n = self.game.num_players
        top = int(np.argmax(view["top_card"])) if view["top_card"].any() else -1
        colour = int(np.argmax(view["colour"])) if view["colour"].any() else -1
        direction = "clockwise" if view["direction"][0] >= 0 else "counter-clockwise"
        step = 1 if view["direction"][0] >= 0 else -1
        following = next(
            (r for k in range(1, n) if view["alive"][(r := (k * step) % n)] > 0),
            0,
        )
        top_text = card_to_str(top) if top >= 0 else "-"
        colour_text = COLOUR_NAMES[colour] if colour >= 0 else "not named yet"
        return (
            f"top card {top_text}   colour {colour_text}   direction {direction} "
            f"(next: {self.seat_name(following)})   draw pile {int(view['draw_pile_size'][0])}"
        )

    def seat_line(self, view: dict, r: int) -> str:
        """The seat ``r`` places clockwise: its cards, score and marks (to act, dealer, exposed, partner)."""
        if not view["alive"][r]:
            return f"  {self.seat_name(r):10s} out of the game"
        size = int(view["hand_sizes"][r])
        marks = []
        if view["acting"][r]:
            marks.append("to act")
        if view["dealer"][r]:
            marks.append("dealer")
        if view["exposed"][r]:
            marks.append("did not call UNO!")
        if self.config.partners and r == self.game.num_players // 2:
            marks.append("partner")
        extra = f"  ({', '.join(marks)})" if marks else ""
        return (
            f"  {self.seat_name(r):10s} {size:3d} card{'s' if size != 1 else ' '}   "
            f"score {int(view['scores'][r])}{extra}"
        )

    def hand_lines(self, view: dict) -> list[str]:
        """The person's hand, the card it drew, and the cards shown to it (a challenge, a Fashion Trend)."""
        hand = [card_to_str(f) for f in range(len(view["hand"])) for _ in range(int(view["hand"][f]))]
        lines = [f"your hand: {' '.join(hand) if hand else '(empty)'}"]
        if view["drawn_card"].any():
            lines.append(f"you drew: {card_to_str(int(np.argmax(view['drawn_card'])))}")
        return lines + self.challenge_lines(view) + self.trend_lines(view)

    def challenge_lines(self, view: dict) -> list[str]:
        """The hand a challenged Wild Draw Four's player showed the person."""
        if not view["challenge_reveal_seat"].any():
            return []
        owner = int(np.argmax(view["challenge_reveal_seat"]))
        shown = [card_to_str(f) for f in range(len(view["hand"])) for _ in range(int(view["challenge_reveal"][f]))]
        return [f"{self.seat_name(owner)} showed you (challenge): {' '.join(shown) or '(nothing)'}"]

    def trend_lines(self, view: dict) -> list[str]:
        """The cards of the trend's colour the other seats showed the person for its Fashion Trend."""
        if "trend_colour" not in view or not view["trend_colour"].any():
            return []
        trend = int(np.argmax(view["trend_colour"]))
        shown = [
            f"{self.seat_name(r)} {card_to_str(trend * RANKS_PER_COLOUR + k)}"
            for r in range(self.game.num_players)
            for k in range(RANKS_PER_COLOUR)
            if view["trend_shown"][r, k]
        ]
        return [f"shown to you for your Fashion Trend: {', '.join(shown)}"] if shown else []

    def house_lines(self, view: dict) -> list[str]:
        """The house rules' public facts: a pending draw penalty, the last Seven-O swap, whose turn follows."""
        lines = []
        if "pending_penalty" in view and view["pending_penalty"][0] > 0:
            lines.append(f"pending draw penalty: {int(view['pending_penalty'][0])} cards")
        if "last_swap" in view and view["last_swap"].any():
            pair = [self.seat_name(int(r)) for r in np.flatnonzero(view["last_swap"])]
            lines.append(f"last 7 swap: {' and '.join(pair)}")
        if "next_turn" in view and view["next_turn"].any():
            lines.append(f"then it is {self.seat_name(int(np.argmax(view['next_turn'])))}'s turn")
        return lines

    def legal_texts(self, mask: np.ndarray) -> list[tuple[int, str]]:
        return [(int(a), self.game.action_to_string(int(a))) for a in np.flatnonzero(mask)]

    def parse(self, text: str, mask: np.ndarray) -> int:
        """Action id of typed text; ValueError with a message for the person otherwise."""
        legal = self.legal_texts(mask)
        words = text.split()
        if len(words) == 1 and words[0].isdigit():
            k = int(words[0])
            if not 1 <= k <= len(legal):
                raise ValueError(f"there is no option {k}: choose 1..{len(legal)} (see 'help')")
            return legal[k - 1][0]
        if words and words[0].lower() not in VERBS:
            try:
                parse_card(words[0])
            except ValueError:
                raise ValueError(
                    f"unknown action {text!r}: type an action such as 'play R7', 'play W G', 'draw', "
                    "or 'help' for the legal ones"
                ) from None
            text = "play " + text  # a bare card: "R7", "W G"
        try:
            action = self.game.string_to_action(text)
        except ValueError as err:
            raise ValueError(f"{err}; type 'help' for the legal actions") from None
        if not mask[action]:
            options = ", ".join(t for _, t in legal)
            raise ValueError(f"'{self.game.action_to_string(action)}' is not legal now; legal: {options}")
        return action

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        self.say(self.render(obs))
        self.recent = []
        while True:
            self.prompt()
            line = self._in().readline()
            if not line:
                raise QuitGame("the input ended")
            text = line.strip()
            if not text:
                self.say("type an action, or 'help' for the legal ones")
                continue
            if text.lower() in ("help", "?", "h"):
                self.say("legal actions:")
                for k, (_, t) in enumerate(self.legal_texts(legal), start=1):
                    self.say(f"  {k:2d}. {t}")
                continue
            if text.lower() in ("quit", "exit", "q"):
                raise QuitGame("quit")
            try:
                return self.parse(text, legal)
            except ValueError as err:
                self.say(f"! {err}")
