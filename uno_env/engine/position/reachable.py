"""What only the whole position tells: how a finished game ended, the hands of a game in
play, and the engine's own invariants as the last word."""

from __future__ import annotations

import numpy as np

from ..checks import invariant_violations
from ..events import EVENT_WIDTH, MAX_EVENTS
from ..layout import (
    PH_CHALLENGE,
    PH_OVER,
    PH_PENALTY,
    S_FORFEIT,
    S_LAST_WINNER,
    S_TRUNCATED,
    S_WD4_OFFENDER,
)
from ..state import outcomes, scores, set_outcome
from .loader import Loader, PositionError, rules


def final_outcome(L: Loader) -> list[int]:
    """The outcome a finished game has, from the engine's own game end: a truncation leaves
    the outcomes undecided, a forfeit (``forfeit``) loses the offender the game, a last
    round's end settles them (``settle_outcomes``: by team, by the lowest score, or the
    last seat left). Refuses the scores or seats that no game ends with."""
    ints = L.state.ints.copy()  # the engine's functions run on a copy of the state
    for s in range(L.n):
        set_outcome(ints, L.P, 0, s, 0 if L.alive[s] else -1)
    rewards = np.zeros((1, L.n), dtype=np.float32)
    events = np.zeros((1, MAX_EVENTS, EVENT_WIDTH), dtype=np.int32)
    count = np.zeros(1, dtype=np.int32)
    forfeit = int(L.ints[S_FORFEIT])
    if L.ints[S_TRUNCATED]:
        pass
    elif forfeit >= 0:
        rules().forfeit(ints, L.P, 0, forfeit, -1, rewards, events, count)
    elif not rules().settle_outcomes(ints, L.P, 0, int(L.ints[S_LAST_WINNER]), rewards, events, count):
        raise unfinished(L)
    return [int(v) for v in outcomes(ints, L.P, 0)]


def unfinished(L: Loader) -> PositionError:
    """Why a game said to be over by its last round would go on (``settle_outcomes`` found
    no end)."""
    config = L.config
    target = config.target_score
    points = [int(v) for v in scores(L.state.ints, L.P, 0)]
    if config.episode == "round" or config.scoring == "standard":
        winner = int(L.ints[S_LAST_WINNER])
        return PositionError(
            "scores",
            f"the game ended, yet its winner {winner} has {points[winner]} < target_score {target}",
        )
    if config.scoring == "alternative":
        return PositionError(
            "scores",
            f"the game ended, yet no score reaches target_score {target} (R-VAR-ALT)",
        )
    return PositionError(
        "alive",
        f"a Challenge UNO game ends with one player left, not {sum(L.alive)} (R-VAR-CHALLENGE)",
    )


def check_reachable(L: Loader) -> None:
    """What only the whole position tells: the outcome of a finished game, the hands of a
    game in play, and the engine's own invariants (checks.py) as the last word."""
    outcome = [int(v) for v in outcomes(L.state.ints, L.P, 0)]
    if L.phase == PH_OVER:
        expected = final_outcome(L)
        if outcome != expected:
            raise PositionError("outcome", f"{outcome} is not how this game ended: {expected}")
        return
    offender = int(L.ints[S_WD4_OFFENDER])
    for s, hand in enumerate(L.hands):
        # only a Wild Draw Four played as the last card leaves a decision behind it (R-END-2)
        if L.alive[s] and not hand and not (s == offender and L.phase in (PH_CHALLENGE, PH_PENALTY)):
            raise PositionError(
                "hands",
                f"player {s} holds no card, so the round is over (R-END-1): phase 'over'",
                f"hands[{s}]",
            )
    for problem in invariant_violations(L.game, L.state):
        raise PositionError(problem.key, f"no game reaches this state: {problem.message}")
