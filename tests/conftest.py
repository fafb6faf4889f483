"""Shared helpers: build positions and play scripted actions in the text notation."""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
import pytest

# the tests compile the engine in their own process when the cache is cold (as before the
# background compilation of entry.py); tests/test_interpreted.py and test_first_use test it
os.environ.setdefault("UNO_BACKGROUND_COMPILE", "0")

from uno_env.engine import Game, RuleConfig  # noqa: E402
from uno_env.engine.cards import card_to_str, deck_counts, parse_card


@functools.cache
def game_for(**settings) -> Game:
    return Game(RuleConfig(**settings))


def make_game(**settings) -> Game:
    return game_for(**settings)


def setup(game: Game, hands, discard, current=0, seed=0, **extra):
    """A state from a compact position (the rest of the deck fills the draw pile)."""
    position = {"hands": hands, "discard_pile": discard, "current_player": current, **extra}
    return game.from_position(position, seed=seed)


def act(game: Game, state, *actions):
    """Play actions (texts) in order; returns the events of all of them."""
    events = []
    for action in actions:
        events += game.step(state, action).events
    return events


def of_type(events, kind):
    return [e for e in events if e["type"] == kind]


def legal(game: Game, state) -> set[str]:
    return {game.action_to_string(a) for a in game.legal_actions(state)}


def hand(game: Game, state, seat) -> list[str]:
    return game.position(state)["hands"][seat]


def card_census(game: Game, state, index: int = 0) -> np.ndarray:
    """Copies of each face across hands, draw pile and discard pile."""
    position = game.position(state, index)
    counts = np.zeros(len(deck_counts(game.config.deck)), dtype=np.int64)
    for cards in position["hands"] + [position["draw_pile"], position["discard_pile"]]:
        for text in cards:
            counts[parse_card(text)] += 1
    return counts


def rest_of_deck(used, deck="classic"):
    """The cards of the deck not in ``used``, in face order."""
    counts = deck_counts(deck).astype(int)
    for text in used:
        counts[parse_card(text)] -= 1
        assert counts[parse_card(text)] >= 0, text
    return [card_to_str(f) for f in range(len(counts)) for _ in range(counts[f])]


def deck_with(top_cards, deck="classic"):
    """A full deck order (texts, top first) that starts with ``top_cards``."""
    return list(top_cards) + rest_of_deck(top_cards, deck)


def deck_for_deal(hands, dealer, starter, then=(), deck="classic"):
    """A deck order that deals ``hands`` (7 cards per seat) from the dealer's left,
    then turns up ``starter``; ``then`` are the next cards of the draw pile."""
    n = len(hands)
    order = []
    for k in range(7):
        for j in range(n):
            order.append(hands[(dealer + 1 + j) % n][k])
    return deck_with(order + [starter] + list(then), deck)


@pytest.fixture
def classic2():
    return make_game(num_players=2)


@pytest.fixture
def classic3():
    return make_game(num_players=3)


@pytest.fixture
def classic4():
    return make_game(num_players=4)


@pytest.fixture
def engine_in_the_cache():
    """The test session's numba cache holds the engine's entry points, as after ``uno warm``:
    compiled here when an edit of their sources cleared them (``numba_cache``), loaded
    otherwise. For the tests whose fresh processes must find them there."""
    from uno_env.engine.entry import all_cached, compiled_entry_points

    compiled_entry_points()
    assert all_cached()


@pytest.fixture(autouse=True)
def one_torch_thread():
    """One torch thread in each test process, where torch is loaded: the tests' networks are
    small and run on small batches, and ``make test`` runs two test processes on two cores,
    where a second thread of each (OpenMP's, waiting for a core) made every small operation
    wait: a seeded training run of the tests took 7-11 s with two threads, 0.5-0.7 s with one.
    The training scripts set their own (``threads``): the tests give them 1."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_a_temporary_folder(tmp_path_factory):
    """stable-baselines3 makes a log folder (tempdir/SB3-<date>) at every ``learn()`` given
    no log path: the tests' go under pytest's temporary folders (subprocesses inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
        yield
