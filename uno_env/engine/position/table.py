"""The keys of the table: the phase and colours, the seats in play and what they drew on or
named, scores and outcomes, the game's progress and end, the acting seat."""

from __future__ import annotations

import numpy as np

from ..cards import (
    CARD_VALUES,
    COLOURS,
    WILD,
    card_to_str,
    deck_counts,
    face_colour,
    is_draw_card,
)
from ..config import HOUSE_PHASES
from ..layout import (
    PH_CHALLENGE,
    PH_COLOR,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    S_COLOUR,
    S_CURRENT,
    S_DEALER,
    S_DIRECTION,
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
    S_PHASE,
    S_PREV_COLOUR,
    S_ROUND,
    S_STEP,
    S_TERMINATED,
    S_TRUNCATED,
)
from ..named import CHOICE_PHASES, PHASE_NAMES
from ..state import (
    outcome,
    set_alive,
    set_drew_on_bits,
    set_named_colour,
    set_outcome,
    set_score,
)
from .loader import MISSING, Loader, PositionError


def read_phase(L: Loader, value) -> None:
    name = "play" if value is MISSING else value
    if not isinstance(name, str) or name not in PHASE_NAMES:
        raise PositionError("phase", f"expected one of {', '.join(PHASE_NAMES)}, got {name!r}")
    L.phase = PHASE_NAMES.index(name)
    L.ints[S_PHASE] = L.phase
    if not L.config.asks(L.phase):
        raise PositionError(
            "phase",
            f"phase {name!r} needs the house rule {HOUSE_PHASES[L.phase]} (off in this configuration)",
        )
    check_phase_on_top(L, L.top)


def check_phase_on_top(L: Loader, top: int) -> None:
    """The card on top that a phase needs (and a challenge's phase with stacking)."""
    if L.phase == PH_CHALLENGE and L.stacking:
        raise PositionError(
            "phase",
            "with stacking a Wild Draw Four is accepted or challenged in phase 'penalty' (D-HOUSE-STACK-ASKED)",
        )
    if L.phase == PH_PENALTY and not is_draw_card(top):
        raise PositionError(
            "phase",
            f"'penalty' needs a Draw Two or Wild Draw Four on top, not {card_to_str(top)}",
        )
    choice = CHOICE_PHASES.get(L.phase)
    if choice and not choice.follows(top):
        raise PositionError(
            "phase",
            f"{PHASE_NAMES[L.phase]!r} needs the {choice.card} just played on top, not {card_to_str(top)} "
            f"({choice.rule})",
        )
    if L.phase == PH_JUMP and top >= WILD:
        raise PositionError(
            "phase",
            f"'jump' needs a coloured card on top: {card_to_str(top)} is never jumped on (R-HOUSE-JUMP-1)",
        )


def read_colour(L: Loader, value) -> None:
    top = L.discard[-1]
    if value is MISSING:
        value = COLOURS[face_colour(top)] if top < WILD else None
    L.colour = -1 if value is None else L.colour_of("colour", value)
    if L.colour < 0 and L.phase not in (
        PH_COLOR,
        PH_OVER,
    ):  # phase over: see _current_player
        raise PositionError("colour", "a current colour is needed (the top card is a wild)")
    if L.phase == PH_COLOR and top < WILD:
        raise PositionError("phase", "'color' needs a Wild or Fashion Trend on top of the discard pile")
    if top < WILD and L.colour != face_colour(top):
        raise PositionError(
            "colour",
            f"{value!r} differs from the colour of the {card_to_str(top)} on top: only a wild card names "
            "another colour (R-TURN-1)",
        )
    L.ints[S_COLOUR] = L.colour


def read_previous_colour(L: Loader, value) -> None:
    L.ints[S_PREV_COLOUR] = -1 if value is MISSING or value is None else L.colour_of("previous_colour", value)


def read_direction(L: Loader, value) -> None:
    direction = 1 if value is MISSING else value
    if (
        isinstance(direction, (bool, np.bool_))
        or not isinstance(direction, (int, np.integer))
        or direction not in (1, -1)
    ):
        raise PositionError("direction", f"expected 1 or -1, got {direction!r}")
    L.ints[S_DIRECTION] = int(direction)


def read_dealer(L: Loader, value) -> None:
    L.ints[S_DEALER] = L.seat("dealer", 0 if value is MISSING else value)


def read_alive(L: Loader, value) -> None:
    values = L.per_seat("alive", [True] * L.n if value is MISSING else value)
    L.alive = [L.flag("alive", v, f"alive[{s}]") for s, v in enumerate(values)]
    check_eliminated(L)
    for s in range(L.n):
        set_alive(L.state.ints, L.P, 0, s, int(L.alive[s]))
        if not L.alive[s] and L.hands[s] and L.phase != PH_OVER:
            raise PositionError("alive", f"seat {s} is eliminated but holds cards")
    L.ints[S_N_ALIVE] = sum(L.alive)
    check_players_left(L)


def check_eliminated(L: Loader) -> None:
    """Players are out only under Challenge UNO over a whole game, and never a round's dealer."""
    if not all(L.alive) and (L.config.scoring != "challenge" or L.config.episode != "game"):
        raise PositionError(
            "alive",
            f"players are eliminated only under Challenge UNO over a whole game (R-VAR-CHALLENGE), not with "
            f"scoring={L.config.scoring!r}, episode={L.config.episode!r}",
        )
    dealer = int(L.ints[S_DEALER])
    if not L.alive[dealer] and L.phase != PH_OVER:
        raise PositionError(
            "dealer",
            f"seat {dealer} is eliminated: each round's dealer is in the game (R-SETUP-5)",
        )


def check_players_left(L: Loader) -> None:
    """Two players in a game in play, three to choose after a card where it needs them
    (phase 'swap')."""
    if L.ints[S_N_ALIVE] < 2 and L.phase != PH_OVER:
        raise PositionError("alive", "at least two players must be in the game")
    choice = CHOICE_PHASES.get(L.phase)
    if choice and L.ints[S_N_ALIVE] < choice.min_players:
        raise PositionError(
            "phase",
            f"with two players in the game a {choice.card} {choice.alone} without a decision: no phase "
            f"{PHASE_NAMES[L.phase]!r} ({choice.rule})",
        )


def read_drew_on(L: Loader, value) -> None:
    values = L.per_seat("drew_on", [[]] * L.n if value is MISSING else value)
    for s, colours in enumerate(values):
        if not isinstance(colours, (list, tuple)):
            raise PositionError(
                "drew_on",
                f"expected a list of colours, got {colours!r}",
                f"drew_on[{s}]",
            )
        bits = 0
        for text in colours:
            bits |= 1 << L.colour_of("drew_on", text, f"drew_on[{s}]")
        if bits and not L.alive[s] and L.phase != PH_OVER:
            raise PositionError(
                "drew_on",
                f"seat {s} is eliminated: it has not drawn this round",
                f"drew_on[{s}]",
            )
        set_drew_on_bits(L.state.ints, L.P, 0, s, bits)


def read_named_colour(L: Loader, value) -> None:
    values = L.per_seat("named_colour", [None] * L.n if value is MISSING else value)
    for s, text in enumerate(values):
        colour = -1 if text is None else L.colour_of("named_colour", text, f"named_colour[{s}]")
        if colour >= 0 and not L.alive[s] and L.phase != PH_OVER:
            raise PositionError(
                "named_colour",
                f"seat {s} is eliminated: it has named no colour this round",
                f"named_colour[{s}]",
            )
        set_named_colour(L.state.ints, L.P, 0, s, colour)


def read_scores(L: Loader, value) -> None:
    values = L.per_seat("scores", [0] * L.n if value is MISSING else value)
    config, target = L.config, L.config.target_score
    # a round adds at most the deck's points to a score, and only a score under the target
    # plays on: a score is 0 .. target + deck points - 1 (under the target while in play)
    high = target - 1 + int(deck_counts(config.deck).astype(np.int64) @ CARD_VALUES[: L.F].astype(np.int64))
    scores = [L.integer("scores", v, 0, high, where=f"scores[{s}]") for s, v in enumerate(values)]
    for s, score in enumerate(scores):
        set_score(L.state.ints, L.P, 0, s, score)
        check_score(L, s, score)
    if config.partners:
        check_team_scores(L, scores)


def check_score(L: Loader, s: int, score: int) -> None:
    """A seat's score: under the target while it plays on; at it, eliminated under Challenge UNO."""
    config, target = L.config, L.config.target_score
    if config.scoring == "challenge" and not L.alive[s] and score < target:
        raise PositionError(
            "scores",
            f"seat {s} is eliminated with {score} < target_score {target} (R-VAR-CHALLENGE)",
            f"scores[{s}]",
        )
    eliminates = config.scoring == "challenge" and config.episode == "game"  # at the target, in any phase
    if (L.phase != PH_OVER or eliminates) and L.alive[s] and score >= target:
        raise PositionError(
            "scores",
            f"{score} reaches target_score {target}: the game would have ended "
            + ("(or the seat been eliminated) " if config.scoring == "challenge" else "")
            + "at the end of that round",
            f"scores[{s}]",
        )


def check_team_scores(L: Loader, scores: list[int]) -> None:
    half = L.n // 2
    for s in range(half):
        if scores[s] != scores[s + half]:
            raise PositionError(
                "scores",
                f"partners {s} and {s + half} score as a team: {scores[s]} != {scores[s + half]} (D-VARIANTS)",
            )


def read_outcome(L: Loader, value) -> None:
    default = [0 if a else -1 for a in L.alive]  # eliminated seats have lost
    values = L.per_seat("outcome", default if value is MISSING else value)
    for s, v in enumerate(values):
        set_outcome(
            L.state.ints,
            L.P,
            0,
            s,
            L.integer("outcome", v, -1, 1, where=f"outcome[{s}]"),
        )
    if L.phase != PH_OVER:
        for s in range(L.n):
            if outcome(L.state.ints, L.P, 0, s) != default[s]:
                raise PositionError(
                    "outcome",
                    f"undecided (0) for a seat in the game, -1 for an eliminated one while the game is in play, "
                    f"not {values[s]!r}",
                    f"outcome[{s}]",
                )


def read_round(L: Loader, value) -> None:
    rounds = L.integer("round", 0 if value is MISSING else value, 0, L.config.max_steps)
    if rounds and L.config.episode == "round":
        raise PositionError("round", f"an episode of one round has played none before it, not {rounds}")
    L.ints[S_ROUND] = rounds


def read_step(L: Loader, value) -> None:
    # the decision that reaches max_steps ends the game (truncated): in play there are fewer
    max_steps = L.config.max_steps
    steps = L.integer("step", 0 if value is MISSING else value, 0, max_steps - (L.phase != PH_OVER))
    if L.ints[S_ROUND] > steps:
        raise PositionError(
            "round",
            f"{L.ints[S_ROUND]} rounds ended in {steps} decisions (step): a round ends by one",
        )
    L.ints[S_STEP] = steps


def read_game_end(index: int, name: str):
    def parse(L: Loader, value) -> None:
        flag = False if value is MISSING else L.flag(name, value)
        if flag and L.phase != PH_OVER:
            raise PositionError(name, f"true only in phase 'over', not {PHASE_NAMES[L.phase]!r}")
        L.ints[index] = int(flag)
        if index != S_TRUNCATED or L.phase != PH_OVER:
            return
        if not flag and not L.ints[S_TERMINATED]:
            raise PositionError("terminated", "phase 'over' needs terminated or truncated true")
        if flag and L.ints[S_TERMINATED]:
            raise PositionError("truncated", "a game ends either terminated or truncated, not both")
        if flag and L.ints[S_STEP] != L.config.max_steps:
            raise PositionError(
                "truncated",
                f"a game is truncated by the decision that reaches max_steps ({L.config.max_steps}), "
                f"not at step {L.ints[S_STEP]}",
            )

    parse.__name__ = f"read_{name}"
    return parse


def read_forfeit(L: Loader, value) -> None:
    seat = L.seat("forfeit", None if value is MISSING else value, allow_none=True)
    L.ints[S_FORFEIT] = seat
    if seat < 0:
        return
    if L.config.illegal_action != "lose":
        raise PositionError(
            "forfeit",
            f"a game is forfeited only with illegal_action='lose', not {L.config.illegal_action!r}",
        )
    if L.phase != PH_OVER or not L.ints[S_TERMINATED]:
        raise PositionError("forfeit", "a forfeit ends the game: phase 'over' and terminated")
    if not L.alive[seat]:
        raise PositionError("forfeit", f"seat {seat} is eliminated: it took no action to lose by")


def read_last_winner(L: Loader, value) -> None:
    seat = L.seat("last_winner", None if value is MISSING else value, allow_none=True)
    L.ints[S_LAST_WINNER] = seat
    if seat >= 0 and not L.alive[seat]:
        raise PositionError(
            "last_winner",
            f"seat {seat} is eliminated: the winner of a round scores nothing itself",
        )
    ended_by_a_round = game_ended_by_a_round(L)
    if ended_by_a_round and seat < 0:
        raise PositionError("last_winner", "a game that ended by its last round has that round's winner")
    # (null in a later round is accepted: a state sampled from an observation knows neither)
    if seat >= 0 and L.ints[S_ROUND] == 0 and not ended_by_a_round:
        raise PositionError(
            "last_winner",
            f"no round has ended before round 0, so no winner of it (seat {seat})",
        )


def game_ended_by_a_round(L: Loader) -> bool:
    """The game is over by its last round's end (not truncated, not forfeited)."""
    return bool(L.phase == PH_OVER and L.ints[S_TERMINATED] and L.ints[S_FORFEIT] < 0)


def read_current_player(L: Loader, value) -> None:
    value = None if value is MISSING else value
    current = L.seat("current_player", value, allow_none=L.phase == PH_OVER)
    if L.phase == PH_OVER:
        if current >= 0:
            raise PositionError(
                "current_player",
                f"null in phase 'over' (nobody acts in a finished game), not {value!r}",
            )
        if L.colour < 0 and not L.interrupted():
            raise PositionError(
                "colour",
                "a current colour is needed (null only while a starting Wild waits for it)",
            )
    elif not L.alive[current]:
        raise PositionError("current_player", f"seat {current} is eliminated")
    if L.phase == PH_JUMP and L.top not in L.hands[current]:
        raise PositionError(
            "current_player",
            f"in phase 'jump' only a holder of the card on top ({card_to_str(L.top)}) is asked; "
            f"player {current} holds none (R-HOUSE-JUMP-2)",
        )
    L.current = current
    L.ints[S_CURRENT] = current
