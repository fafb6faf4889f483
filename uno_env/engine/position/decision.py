"""The keys of the decision under way: the UNO call, the drawn card, the catch window, a
stack's pending penalty, a Wild Draw Four's pending decision, who played the top card and
whose turn follows a Seven-O choice or a jump-in window."""

from __future__ import annotations

from ..cards import COLOURS, WILD, WILD_DRAW_FOUR, card_to_str, is_draw_card, matches_on
from ..config import HOUSE_PHASES
from ..layout import (
    PH_CATCH,
    PH_CHALLENGE,
    PH_COLOR,
    PH_DRAWN,
    PH_JUMP,
    PH_OVER,
    PH_PENALTY,
    PH_SWAP,
    S_AFTER_WINDOW,
    S_DRAWN,
    S_EXPOSED,
    S_FOLLOWING,
    S_PENDING,
    S_PREV_COLOUR,
    S_TOP_PLAYER,
    S_UNO_CALLED,
    S_WD4_EXPOSED,
    S_WD4_GUILTY,
    S_WD4_OFFENDER,
    S_WD4_OUT,
)
from ..named import (
    CHOICE_PHASES,
    NEXT_TURN_PHASES,
    PHASE_NAMES,
    UNO_CALL_PHASES,
    phase_list,
    uno_call_fits,
)
from .loader import MISSING, Loader, PositionError, parse_cards, rules


def read_uno_called(L: Loader, value) -> None:
    called = False if value is MISSING else L.flag("uno_called", value)
    if called and L.config.uno_call == "off":
        raise PositionError("uno_called", "there is no UNO call with uno_call='off'")
    if called and not L.interrupted():
        if L.phase not in UNO_CALL_PHASES:
            raise PositionError(
                "uno_called",
                f"true only in phase {phase_list(UNO_CALL_PHASES)}, not {PHASE_NAMES[L.phase]!r}",
            )
        # D-UNO: called with two cards; a player who called and then drew (drawing is always
        # legal) holds three while deciding on the drawn card, or more after drawing until a
        # card could be played (R-HOUSE-DRAW-1): the phase's declared hands
        size = len(L.hands[L.current])
        if not uno_call_fits(L.phase, size, L.config):
            raise PositionError(
                "uno_called",
                f"UNO is called with two cards (three after drawing); player {L.current} holds "
                f"{size} in phase {PHASE_NAMES[L.phase]!r} (D-UNO)",
            )
    L.ints[S_UNO_CALLED] = int(called)


def read_drawn_card(L: Loader, value) -> None:
    drawn = None if value is MISSING else value
    L.ints[S_DRAWN] = -1
    L.ints[S_DRAWN] = drawn_card_held(L, drawn) if L.phase != PH_DRAWN else drawn_card_decided(L, drawn)


def drawn_card_held(L: Loader, drawn) -> int:
    """Outside phase 'drawn': no drawn card (-1), but where the decision on it was
    interrupted (the card is still held)."""
    if drawn is None:
        return -1
    if not L.interrupted():
        raise PositionError("drawn_card", "only set in phase 'drawn'")
    face = parse_cards([drawn], "drawn_card")[0]
    if not any(face in hand for hand in L.hands):
        raise PositionError("drawn_card", f"{drawn} is in no hand")
    return face


def drawn_card_decided(L: Loader, drawn) -> int:
    """In phase 'drawn': the card the current player drew, playable, and not one force play plays at once."""
    if drawn is None:
        raise PositionError("drawn_card", "phase 'drawn' needs drawn_card")
    face = parse_cards([drawn], "drawn_card")[0]
    if face not in L.hands[L.current]:
        raise PositionError("drawn_card", f"{drawn} is not in the hand of player {L.current}")
    if not matches_on(face, L.colour, L.top):
        raise PositionError(
            "drawn_card",
            f"{drawn} cannot be played, so there is no decision on it (D-DRAWN)",
        )
    uno_left = L.config.uno_call != "off" and len(L.hands[L.current]) == 2 and not L.ints[S_UNO_CALLED]
    if L.config.force_play and face < WILD and not uno_left:
        raise PositionError(
            "drawn_card",
            f"with force_play a drawn {drawn} is played at once: a coloured drawn card is decided on only "
            "where UNO can still be called first (R-HOUSE-FORCE-1)",
        )
    return face


def read_catch_window(L: Loader, value) -> None:
    window = None if value is MISSING else value
    L.ints[S_EXPOSED] = -1
    L.ints[S_AFTER_WINDOW] = -1
    interrupted = window is not None and L.interrupted()
    if L.phase != PH_CATCH and not interrupted:
        if window is not None:
            raise PositionError("catch_window", "only set in phase 'catch'")
        return
    if window is None:
        raise PositionError(
            "catch_window",
            "phase 'catch' needs catch_window: {'exposed': seat, 'next_player': seat}",
        )
    window = L.record("catch_window", window, {"exposed": True, "next_player": True})
    exposed = L.seat("catch_window", window["exposed"], where="catch_window.exposed")
    if len(L.hands[exposed]) != 1:
        raise PositionError(
            "catch_window",
            f"player {exposed} must hold exactly one card",
            "catch_window.exposed",
        )
    if exposed == L.current:
        raise PositionError("catch_window", "the exposed player is never asked (D-WINDOW)")
    L.ints[S_EXPOSED] = exposed
    L.ints[S_AFTER_WINDOW] = L.seat("catch_window", window["next_player"], where="catch_window.next_player")


def read_pending_penalty(L: Loader, value) -> None:
    pending = 0 if value is MISSING else L.integer("pending_penalty", value, 0)
    L.ints[S_PENDING] = pending
    top = L.top
    draw_card_on_top = is_draw_card(top)
    if pending == 0:
        check_none_pending(L, top, draw_card_on_top)
        return
    if not L.stacking:
        raise PositionError(
            "pending_penalty",
            "a pending penalty needs stacking (R-HOUSE-STACK-1), not stacking='off'",
        )
    if not draw_card_on_top:
        raise PositionError(
            "pending_penalty",
            f"a pending penalty needs a Draw Two or Wild Draw Four on top, not {card_to_str(top)}",
        )
    if L.phase not in (PH_PENALTY, PH_CATCH) and not L.interrupted():
        raise PositionError(
            "pending_penalty",
            f"> 0 only in phase 'penalty' or in the catch window before it, not in {PHASE_NAMES[L.phase]!r}",
        )
    check_stacked(L, pending, top)


def check_none_pending(L: Loader, top: int, draw_card_on_top: bool) -> None:
    """No pending penalty: not in phase 'penalty', nor in the catch window before one."""
    if L.phase == PH_PENALTY:
        raise PositionError(
            "pending_penalty",
            "phase 'penalty' needs pending_penalty > 0: the cards its target draws",
        )
    if L.phase == PH_CATCH and L.stacking and draw_card_on_top:
        raise PositionError(
            "pending_penalty",
            f"with stacking the catch window after a {card_to_str(top)} comes before its target's penalty "
            "decision: pending_penalty > 0 (D-HOUSE-STACK-UNO)",
        )


def check_stacked(L: Loader, pending: int, top: int) -> None:
    """A pending penalty that stacks can reach: 2 per Draw Two, 4 per Wild Draw Four, and
    with stacking='same' only Wild Draw Fours under a Wild Draw Four."""
    if pending % 2 or (top == WILD_DRAW_FOUR and pending < 4):
        raise PositionError(
            "pending_penalty",
            f"{pending} cannot be stacked: Draw Twos add 2 and Wild Draw Fours 4 (R-HOUSE-STACK-2)",
        )
    if L.config.stacking == "same" and top == WILD_DRAW_FOUR and pending % 4:
        raise PositionError(
            "pending_penalty",
            f"{pending}: with stacking='same' only Wild Draw Fours stack under a Wild Draw Four (R-HOUSE-STACK-2)",
        )


def read_wild_draw_four(L: Loader, value) -> None:
    wd4 = None if value is MISSING else value
    L.ints[S_WD4_OFFENDER] = -1
    stacked = stacked_wild_draw_four(L)
    interrupted = wd4 is not None and L.interrupted()
    if not (L.phase == PH_CHALLENGE or stacked or interrupted):
        if wd4 is not None:
            raise PositionError(
                "wild_draw_four",
                "only set in phase 'challenge', or with stacking while a Wild Draw Four's penalty is pending",
            )
        return
    if wd4 is None:
        raise PositionError(
            "wild_draw_four",
            f"phase {PHASE_NAMES[L.phase]!r} with a W+4 on top needs wild_draw_four: {{'offender': seat, ...}}",
        )
    wd4 = L.record("wild_draw_four", wd4, {"offender": True, "exposed": False, "guilty": False})
    if L.top != WILD_DRAW_FOUR:
        raise PositionError("wild_draw_four", "needs a W+4 on top of the discard pile")
    offender = wild_draw_four_offender(L, wd4)
    exposed = wild_draw_four_exposed(L, wd4)
    guilty = wild_draw_four_guilt(L, wd4, offender, interrupted)
    L.ints[S_WD4_OFFENDER] = offender
    L.ints[S_WD4_GUILTY] = int(guilty)
    L.ints[S_WD4_OUT] = int(not L.hands[offender])
    L.ints[S_WD4_EXPOSED] = int(exposed)


def stacked_wild_draw_four(L: Loader) -> bool:
    """With stacking a Wild Draw Four's pending penalty (its catch window first) is decided
    on in phase 'penalty' (R-HOUSE-STACK-3)."""
    return bool(L.stacking and L.phase in (PH_PENALTY, PH_CATCH) and L.top == WILD_DRAW_FOUR)


def wild_draw_four_exposed(L: Loader, wd4: dict) -> bool:
    """Whether the Wild Draw Four's player was exposed (no UNO call): never with stacking."""
    exposed = L.flag("wild_draw_four", wd4.get("exposed", False), "wild_draw_four.exposed")
    if exposed and L.stacking:
        raise PositionError(
            "wild_draw_four",
            "with stacking the catch window comes before the penalty decision: exposed is false (D-HOUSE-STACK-UNO)",
            "wild_draw_four.exposed",
        )
    return exposed


def wild_draw_four_offender(L: Loader, wd4: dict) -> int:
    """The seat that played the Wild Draw Four: not the one deciding on it (R-WD4-5,
    R-HOUSE-STACK-3), the exposed player in the catch window before the penalty decision."""
    offender = L.seat("wild_draw_four", wd4["offender"], where="wild_draw_four.offender")
    if offender == L.current:
        target = "challenge (R-WD4-5)" if L.phase == PH_CHALLENGE else "be the target of its penalty (R-HOUSE-STACK-3)"
        raise PositionError(
            "wild_draw_four",
            f"only the next player may {target}",
            "wild_draw_four.offender",
        )
    if L.phase == PH_CATCH and offender != L.ints[S_EXPOSED]:
        raise PositionError(
            "wild_draw_four",
            "in the catch window before the penalty decision the exposed player is the offender (D-HOUSE-STACK-UNO)",
            "wild_draw_four.offender",
        )
    return offender


def wild_draw_four_guilt(L: Loader, wd4: dict, offender: int, interrupted: bool) -> bool:
    """Whether the Wild Draw Four was played holding a card of the previous colour (R-WD4-2):
    the engine's ``holds_colour`` on the offender's hand, unless ``guilty`` says otherwise
    where the offender may have drawn since (D-HOUSE-STACK-JUDGE)."""
    previous = int(L.ints[S_PREV_COLOUR])
    holds = bool(rules().holds_colour(L.state.cards, L.P, 0, offender, previous))
    guilty = holds if "guilty" not in wd4 else L.flag("wild_draw_four", wd4["guilty"], "wild_draw_four.guilty")
    if guilty and not holds:
        raise PositionError(
            "wild_draw_four",
            f"guilty, but player {offender} holds no card of the previous colour",
            "wild_draw_four.guilty",
        )
    # D-HOUSE-STACK-JUDGE: judged on the hand held when playing it; only a catch in the window
    # before the penalty decision (two cards onto the last one) can bring the colour in since
    caught = L.stacking and (L.phase == PH_PENALTY or interrupted) and len(L.hands[offender]) >= 3
    if holds and not guilty and not caught:
        raise PositionError(
            "wild_draw_four",
            f"not guilty, but player {offender} holds a card of the previous colour {COLOURS[previous]} "
            "and drew none since playing it",
            "wild_draw_four.guilty",
        )
    return guilty


def read_top_card_player(L: Loader, value) -> None:
    expected, who = decided_top_player(L)
    default = None if expected < 0 else expected
    top_player = L.seat("top_card_player", default if value is MISSING else value, allow_none=True)
    L.ints[S_TOP_PLAYER] = top_player
    if L.phase != PH_OVER:
        check_top_player(L, top_player, expected, who)


def decided_top_player(L: Loader) -> tuple[int, str]:
    """Where the decision tells who played the top card, that seat (and the default) and
    the words for it; (-1, "") elsewhere."""
    if L.phase == PH_CATCH:
        return int(L.ints[S_EXPOSED]), "the exposed player (catch_window.exposed)"
    if L.ints[S_WD4_OFFENDER] >= 0 and L.phase != PH_OVER:
        return int(L.ints[S_WD4_OFFENDER]), "the Wild Draw Four's player (wild_draw_four.offender)"
    choice = CHOICE_PHASES.get(L.phase)
    if choice:
        return L.current, f"the player of the {choice.card}, who chooses (current_player)"
    return -1, ""


def check_top_player(L: Loader, top_player: int, expected: int, who: str) -> None:
    """The seat that played the top card in a game in play: the decision's, in the game,
    none for a starting card, where a window or a penalty can follow one."""
    # Without jump_in nothing reads the seat but a choice after a card (no observation slice,
    # no window): there an unknown one (null, as a sampled state from an observation has it) is
    # accepted, except in a choice after a card (phase 'swap').
    unknown = top_player < 0 and not L.config.jump_in and L.phase not in CHOICE_PHASES
    if expected >= 0 and top_player != expected and not unknown:
        raise PositionError(
            "top_card_player",
            f"in phase {PHASE_NAMES[L.phase]!r} it is {who}: seat {expected}",
        )
    if top_player >= 0 and not L.alive[top_player]:
        raise PositionError("top_card_player", f"seat {top_player} is eliminated")
    check_top_player_in_phase(L, top_player)


def check_top_player_in_phase(L: Loader, top_player: int) -> None:
    """A starting card (no player) in the phases that follow one, a player in those that need one."""
    if L.phase == PH_COLOR and top_player >= 0:
        raise PositionError("top_card_player", "a starting Wild has no player: null in phase 'color'")
    if L.phase == PH_PENALTY and top_player < 0 and L.ints[S_PENDING] != 2 and L.config.jump_in:
        raise PositionError(
            "top_card_player",
            "null (a starting card) in phase 'penalty' only with a starting Draw Two's pending 2 (R-HOUSE-STACK-4)",
        )
    if L.phase != PH_JUMP:
        return
    if top_player < 0:
        raise PositionError(
            "top_card_player",
            "phase 'jump' needs the seat that played the top card: no window on a starting card",
        )
    if top_player == L.current:
        raise PositionError(
            "top_card_player",
            f"player {top_player} played the top card and is never asked to jump in (R-HOUSE-JUMP-2)",
        )


def read_next_turn(L: Loader, value) -> None:
    given = None if value is MISSING else value
    L.ints[S_FOLLOWING] = -1
    settings = [HOUSE_PHASES[p] for p in NEXT_TURN_PHASES]
    if given is not None and not any(L.config.asks(p) for p in NEXT_TURN_PHASES):
        raise PositionError("next_turn", f"needs {' or '.join(settings)} (phase {phase_list(NEXT_TURN_PHASES)})")
    if L.phase not in NEXT_TURN_PHASES:
        if given is not None and not L.interrupted():
            raise PositionError("next_turn", f"only set in phase {phase_list(NEXT_TURN_PHASES)}")
        if given is not None:
            L.ints[S_FOLLOWING] = L.seat("next_turn", given)
        return
    L.ints[S_FOLLOWING] = next_turn_after_choice(L, given)


def next_turn_after_choice(L: Loader, given) -> int:
    """The seat whose turn begins after a 7's swap (the next in play) or a jump-in window
    (given; never the seat asked)."""
    after = L.next_in_play(L.current)
    if given is None and L.phase == PH_JUMP:
        raise PositionError(
            "next_turn",
            "phase 'jump' needs next_turn: the seat whose turn begins after the window",
        )
    seat = L.seat("next_turn", after if given is None else given)
    if not L.alive[seat]:
        raise PositionError("next_turn", f"seat {seat} is eliminated")
    if L.phase == PH_SWAP and seat != after:
        raise PositionError(
            "next_turn",
            f"after a 7 the turn passes to the next player in play, seat {after} (R-HOUSE-SEVENO-3)",
        )
    if L.phase == PH_JUMP and seat == L.current:
        raise PositionError(
            "next_turn",
            f"player {seat} would begin the next turn and is not asked to jump in (R-HOUSE-JUMP-2)",
        )
    return seat
