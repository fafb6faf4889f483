"""Round end and scoring: the round's points, whether the game ends with it and its
outcomes and rewards (R-END, R-SCORE, R-VAR-ALT/PARTNERS/CHALLENGE), and a forfeit
(``illegal_action="lose"``)."""

from __future__ import annotations

from ..cards import CARD_VALUES
from ..events import EV_ELIMINATED, EV_FORFEIT, EV_GAME_END, EV_ROUND_END, EV_SCORE
from ..jit import describe, kernel
from ..layout import (
    EPISODE_ROUND,
    P_EPISODE,
    P_FACES,
    P_NUM_PLAYERS,
    P_REWARD,
    P_SCORING,
    P_TARGET_SCORE,
    PH_OVER,
    REWARD_POINTS,
    REWARD_WIN,
    S_CURRENT,
    S_DEALER,
    S_FORFEIT,
    S_LAST_WINNER,
    S_N_ALIVE,
    S_PHASE,
    S_ROUND,
    S_TERMINATED,
    SCORING_ALTERNATIVE,
    SCORING_STANDARD,
)
from ..state import add_score, hand, is_alive, outcome, score, set_alive, set_outcome
from .basics import emit
from .deal import start_round
from .turn_order import next_alive, same_team

describe(__name__, "the rules engine's kernels", seconds=45)


@kernel
def hand_value(cards, P, b, seat):
    held = hand(cards, P, b, seat)
    total = 0
    for f in range(P[P_FACES]):
        c = held[f]
        if c > 0:
            total += CARD_VALUES[f] * c
    return total


@kernel
def finish_game(ints, P, b, rw, ev, evn):
    """Terminal bookkeeping once outcomes are set: rewards (R-SCORE-2) and the over phase."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        o = outcome(ints, P, b, s)
        if o > 0:
            emit(ev, evn, b, EV_GAME_END, s, 0, 0)
        if P[P_REWARD] == REWARD_WIN and is_alive(ints, P, b, s):
            rw[b, s] += o
    ints[b, S_TERMINATED] = 1
    ints[b, S_PHASE] = PH_OVER
    ints[b, S_CURRENT] = -1


@kernel
def score_round(cards, ints, P, b, winner, rw, ev, evn):
    """R-SCORE-1/3, R-VAR-ALT: the round's points. Standard scoring credits the winner's
    side with the cards left in the other hands; the alternative charges each hand its own."""
    n = P[P_NUM_PLAYERS]
    if P[P_SCORING] == SCORING_STANDARD:
        points = 0
        for s in range(n):
            if is_alive(ints, P, b, s) and not same_team(P, s, winner):
                points += hand_value(cards, P, b, s)
        emit(ev, evn, b, EV_ROUND_END, winner, points, 0)
        for s in range(n):
            if same_team(P, s, winner):
                add_score(ints, P, b, s, points)
                emit(ev, evn, b, EV_SCORE, s, points, score(ints, P, b, s))
                if P[P_REWARD] == REWARD_POINTS:
                    rw[b, s] += points
        return
    emit(ev, evn, b, EV_ROUND_END, winner, 0, 0)
    for s in range(n):
        if is_alive(ints, P, b, s):
            points = hand_value(cards, P, b, s)
            add_score(ints, P, b, s, points)
            emit(ev, evn, b, EV_SCORE, s, points, score(ints, P, b, s))
            if P[P_REWARD] == REWARD_POINTS:
                rw[b, s] -= points


@kernel
def lowest_score_wins(ints, P, b):
    """R-VAR-ALT: once a score reaches the target, the lowest score wins. Whether it is over."""
    n = P[P_NUM_PLAYERS]
    lowest = 1 << 30
    reached = False
    for s in range(n):
        v = score(ints, P, b, s)
        reached = reached or v >= P[P_TARGET_SCORE]
        lowest = min(lowest, v)
    if not reached:
        return False
    for s in range(n):
        set_outcome(ints, P, b, s, 1 if score(ints, P, b, s) == lowest else -1)
    return True


@kernel
def eliminate_at_target(ints, P, b, rw, ev, evn):
    """R-VAR-CHALLENGE: everyone at the target is out at once; the last seat left wins.
    Whether it is over."""
    n = P[P_NUM_PLAYERS]
    for s in range(n):
        if is_alive(ints, P, b, s) and score(ints, P, b, s) >= P[P_TARGET_SCORE]:
            set_alive(ints, P, b, s, 0)
            ints[b, S_N_ALIVE] -= 1
            set_outcome(ints, P, b, s, -1)
            if P[P_REWARD] == REWARD_WIN:
                rw[b, s] -= 1
            emit(ev, evn, b, EV_ELIMINATED, s, 0, 0)
    if ints[b, S_N_ALIVE] != 1:
        return False
    for s in range(n):
        if is_alive(ints, P, b, s):
            set_outcome(ints, P, b, s, 1)
    return True


@kernel
def settle_outcomes(ints, P, b, winner, rw, ev, evn):
    """R-END-1, R-SCORE-2, R-VAR-*: whether the game ends with this round, its outcomes set if so."""
    scoring = P[P_SCORING]
    if P[P_EPISODE] == EPISODE_ROUND or scoring == SCORING_STANDARD:
        if P[P_EPISODE] != EPISODE_ROUND and score(ints, P, b, winner) < P[P_TARGET_SCORE]:
            return False
        for s in range(P[P_NUM_PLAYERS]):
            if is_alive(ints, P, b, s):
                set_outcome(ints, P, b, s, 1 if same_team(P, s, winner) else -1)
        return True
    if scoring == SCORING_ALTERNATIVE:
        return lowest_score_wins(ints, P, b)
    return eliminate_at_target(ints, P, b, rw, ev, evn)  # Challenge UNO


@kernel
def end_round(cards, ints, rng, P, b, winner, rw, ev, evn):
    """R-END-1, R-SCORE, R-VAR-ALT/PARTNERS/CHALLENGE: score, then next round or game end."""
    ints[b, S_LAST_WINNER] = winner
    score_round(cards, ints, P, b, winner, rw, ev, evn)
    if settle_outcomes(ints, P, b, winner, rw, ev, evn):
        finish_game(ints, P, b, rw, ev, evn)
        return
    ints[b, S_ROUND] += 1
    dealer = next_alive(ints, P, b, ints[b, S_DEALER], 1)
    start_round(cards, ints, rng, P, b, dealer, ev, evn)


@kernel(inline="always")
def forfeit(ints, P, b, player, face, rw, ev, evn):
    """illegal_action="lose": the offender loses and the game ends (PettingZoo's classic rule)."""
    emit(ev, evn, b, EV_FORFEIT, player, face, 0)
    ints[b, S_FORFEIT] = player
    set_outcome(ints, P, b, player, -1)
    rw[b, player] = -1.0
    ints[b, S_TERMINATED] = 1
    ints[b, S_PHASE] = PH_OVER
    ints[b, S_CURRENT] = -1
