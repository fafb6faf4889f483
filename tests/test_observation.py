"""The observation vector: named slices, their meaning, and no hidden information (R-TURN-6)."""

import numpy as np
import pytest

from uno_env.engine import Game, ObservationSpec, RuleConfig
from uno_env.engine.cards import card_to_str, parse_card
from uno_env.engine.named import PHASE_NAMES, PRIVATE_PHASES

from . import variants
from .conftest import act, make_game, setup


@pytest.mark.parametrize("settings", variants.params("observation"))
def test_slices_tile_the_vector_and_sizes_come_from_the_config(settings):
    spec = ObservationSpec(RuleConfig(**settings))
    offset = 0
    for s in spec.slices:
        assert s.offset == offset and len(s.labels) == s.size == len(s.high)
        offset += s.size
    assert spec.size == offset == len(spec.low) == len(spec.high)
    assert spec.by_name["hand_sizes"].size == settings["num_players"]
    faces = 55 if settings.get("deck") == "fashion_trend" else 54
    assert spec.by_name["hand"].size == faces
    assert ("trend_shown" in spec.by_name) == (faces == 55)
    table = spec.markdown_table()
    assert all(f"`{s.name}`" in table for s in spec.slices)


def test_slices_mean_what_they_say():
    game = make_game(num_players=3)
    state = setup(
        game,
        [["R2", "R2", "G9"], ["Y1", "Y3"], ["G1"]],
        ["B7", "R7"],
        current=1,
        dealer=2,
        direction=-1,
        scores=[5, 10, 20],
    )
    obs = game.observe_dict(state, 1)
    assert obs["hand"][parse_card("Y1")] == 1 and obs["hand"].sum() == 2
    assert obs["top_card"][parse_card("R7")] == 1 and obs["top_card"].sum() == 1
    assert obs["colour"].tolist() == [1, 0, 0, 0]
    assert obs["direction"][0] == -1
    assert obs["phase"].tolist() == [1, 0, 0, 0, 0, 0]
    assert obs["acting"].tolist() == [1, 0, 0]
    assert obs["dealer"].tolist() == [0, 1, 0]  # seat 2 is one seat after seat 1
    assert obs["hand_sizes"].tolist() == [2, 1, 3]
    assert obs["scores"].tolist() == [10, 20, 5]
    assert obs["alive"].tolist() == [1, 1, 1]
    assert obs["draw_pile_size"][0] == 108 - 8
    assert obs["discard_pile"][parse_card("B7")] == 1
    spec = game.obs_spec
    vector = game.observe(state, 1)
    assert ((vector >= spec.low) & (vector <= spec.high)).all()
    text = spec.to_text(vector)
    assert "hand" in text and "Y1" in text


def permute_hidden(game, position, observer, rng):
    """The same position with every card the observer cannot see shuffled among the
    places it cannot see (other hands, draw pile), sizes kept."""
    n = game.num_players
    pinned = None  # a card that the decision says its player holds
    if position["phase"] == "drawn" and position["current_player"] != observer:
        pinned = (position["current_player"], position["drawn_card"])
    private = [PHASE_NAMES[p] for p in PRIVATE_PHASES]  # a jump-in: its seat holds the card on top
    if position["phase"] in private and position["current_player"] != observer:
        pinned = (position["current_player"], position["discard_pile"][-1])
    pools = []
    for seat in range(n):
        if seat != observer:
            cards = list(position["hands"][seat])
            if pinned and pinned[0] == seat:
                cards.remove(pinned[1])
            pools.append(("hand", seat, len(cards), cards))
    pools.append(("draw", None, len(position["draw_pile"]), position["draw_pile"]))
    hidden = [c for *_, cards in pools for c in cards]
    hidden = [hidden[i] for i in rng.permutation(len(hidden))]
    out = dict(position, hands=[list(h) for h in position["hands"]])
    if position["wild_draw_four"]:  # its verdict (hidden) judged again on the shuffled hand
        out["wild_draw_four"] = {k: v for k, v in position["wild_draw_four"].items() if k != "guilty"}
    k = 0
    for kind, seat, size, _ in pools:
        part = hidden[k : k + size]
        k += size
        if kind == "hand":
            out["hands"][seat] = part + ([pinned[1]] if pinned and pinned[0] == seat else [])
        else:
            out["draw_pile"] = part
    return out


@pytest.mark.parametrize("settings", variants.params("observation"))
def test_observation_carries_no_hidden_information(settings):
    game = Game(**settings)
    rng = np.random.default_rng(3)
    state = game.init(seed=9)
    checked = 0
    for _ in range(400):
        if game.is_over(state):
            break
        position = game.position(state)
        for observer in range(game.num_players):
            permuted = game.from_position(permute_hidden(game, position, observer, rng))
            assert np.array_equal(game.observe(permuted, observer), game.observe(state, observer))
            checked += 1
        game.step(state, int(rng.choice(game.legal_actions(state))))
    assert checked > 100


def test_a_permutation_does_change_what_it_permutes():
    """Guards the test above: the permuted state differs for the players who hold the cards."""
    game = Game(num_players=3)
    state = game.init(seed=1)
    position = game.position(state)
    permuted = game.from_position(permute_hidden(game, position, 0, np.random.default_rng(0)))
    assert not np.array_equal(game.observe(permuted, 1), game.observe(state, 1))


def test_challenge_reveal_is_a_snapshot_for_the_challenger():
    game = make_game(num_players=2)
    state = setup(game, [["R2", "W+4", "B9"], ["Y1", "Y2"]], ["R7"], draw_pile=["G1", "G2", "G3", "G4", "..."])
    act(game, state, "play W+4 G", "challenge")
    revealed = game.observe_dict(state, 1)["challenge_reveal"]
    assert sorted(card_to_str(f) for f in np.flatnonzero(revealed)) == ["B9", "R2"]
    assert game.hand_sizes(state)[0] == 6  # the 4 drawn after the reveal are not shown


@pytest.mark.parametrize("deck", ["classic", "fashion_trend"])
def test_compiled_action_decoding_agrees_with_the_action_table(deck):
    """readers.action_face / action_colour / wild_action, the compiled decoders of the
    policies and the search, say what ActionTable says of every action."""
    from uno_env.engine.cards import CARD_VALUES, FACE_COPIES, card_value, deck_counts
    from uno_env.engine.readers import action_colour, action_face, face_copies, face_value, wild_action

    game = make_game(num_players=3, deck=deck)
    table, P = game.actions, game.params
    for a in range(game.num_actions):
        kind_is_play = table.to_string(a).startswith("play ")
        assert action_face(P, a) == (table.faces[a] if kind_is_play else -1), table.to_string(a)
        if kind_is_play:
            assert action_colour(P, a) == table.colours[a]
            if table.faces[a] >= 52:
                assert wild_action(P, table.faces[a], table.colours[a]) == a
    counts = deck_counts(deck)
    for f in range(len(counts)):
        assert face_copies(f) == FACE_COPIES[f] == counts[f]
        assert face_value(f) == CARD_VALUES[f] == card_value(f)


def test_readers_read_what_observe_wrote():
    from uno_env.engine import readers as R

    game = make_game(num_players=4)
    state = game.init(seed=12)
    seat = game.current_player(state)
    obs, P = game.observe(state, seat), game.params
    view = game.observe_dict(state, seat)
    assert R.obs_phase(obs, P) == ["play", "drawn", "color", "challenge", "catch", "over"].index(game.phase(state))
    assert R.obs_hand_size(obs, P, 0) == len(game.position(state)["hands"][seat])
    assert R.obs_players_in(obs, P) == 4
    assert R.obs_direction(obs, P) == int(np.sign(view["direction"][0]))
    counts, points = R.hand_colour_counts(obs, P)
    assert sum(counts) == sum(int(view["hand"][f]) for f in range(52))


def test_observe_into_the_callers_array_and_legal_actions_as_python_ints():
    """Game.observe writes into a given array (numba checks its type) what it returns in a
    new one, and legal_actions lists the mask's ids as Python ints."""
    game = make_game(num_players=3)
    state = game.init(seed=12)
    for _ in range(30):
        seat = game.current_player(state)
        out = np.full(game.observation_size, np.nan, dtype=np.float32)
        assert game.observe(state, seat, out=out) is out
        assert np.array_equal(out, game.observe(state, seat))
        legal = game.legal_actions(state)
        assert legal == [int(a) for a in np.flatnonzero(game.legal_mask(state))]
        assert all(type(a) is int for a in legal)
        game.step(state, legal[len(legal) // 2])
