"""uno_env.arena.notebook: the notebooks' helpers (logged play, ablations, statistics)."""

import numpy as np
import pytest

from uno_env import RuleConfig
from uno_env.agents import make_agent
from uno_env.arena import notebook as A
from uno_env.arena import run_tournament
from uno_env.engine import Game
from uno_env.engine.layout import PH_CATCH, PH_CHALLENGE, PH_COLOR

TWO = RuleConfig(num_players=2, episode="round")


def test_notebook_size(monkeypatch):
    monkeypatch.delenv(A.SIZE_VARIABLE, raising=False)
    assert A.notebook_size() == "small"
    monkeypatch.setenv(A.SIZE_VARIABLE, "FULL")
    assert A.notebook_size() == "full"
    monkeypatch.setenv(A.SIZE_VARIABLE, "huge")
    with pytest.raises(ValueError, match="UNO_NOTEBOOK_SIZE"):
        A.notebook_size()


def test_save_figure_writes_only_at_full_size(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setattr(A, "FIGURE_DIR", tmp_path)
    fig = plt.figure()
    assert A.save_figure(fig, "x", "small") is None
    assert not list(tmp_path.iterdir())
    assert A.save_figure(fig, "x", "full") == tmp_path / "x.png"
    assert (tmp_path / "x.png").stat().st_size > 0
    plt.close(fig)


def test_rate_and_mean_interval():
    p, lo, hi = A.rate(30, 100)
    assert p == 0.3 and lo < 0.3 < hi
    assert np.isnan(A.rate(0, 0)[0])
    mean, lo, hi = A.mean_interval([1.0, 2.0, 3.0])
    assert mean == 2.0 and lo < 2.0 < hi


def test_play_logged_plays_the_tournaments_games():
    """Compiled agents, same seeds and seatings: the hands of run_tournament, outcome for outcome."""
    log = A.play_logged(TWO, ["tactical", "keeper"], 12, seed=5)
    _, schedule, _, records = run_tournament(["tactical", "keeper"], TWO, games=12, seed=5, bootstrap=0)
    assert log.lineups.tolist() == [list(j) for j in schedule.jobs]
    assert np.array_equal(log.hands["outcome"], records["outcome"])
    assert np.array_equal(log.hands["steps"], records["steps"])
    assert len(log.decisions["action"]) == records["steps"].sum()
    again = A.play_logged(TWO, ["tactical", "keeper"], 12, seed=5)
    assert np.array_equal(again.decisions["action"], log.decisions["action"])
    won, played = log.wins("tactical")
    assert played == 12 and won == int((records["outcome"][np.array(schedule.jobs) == 0] > 0).sum())


def test_play_logged_records_decisions_and_events():
    log = A.play_logged(TWO, ["random_play", "tactical"], 40, seed=1, counterfactual="tactical")
    d = log.decisions
    assert set(A.DECISION_FIELDS) <= set(d) and {"estimate", "q", "face"} <= set(d)
    tactical = log.of("tactical")
    assert np.array_equal(d["action"][tactical], d["counterfactual"][tactical])  # tactical agrees with itself
    challenge = d["phase"] == PH_CHALLENGE
    assert challenge.any()
    assert set(d["guilty"][challenge]) <= {0, 1} and (d["guilty"][~challenge] == -1).all()
    assert np.isfinite(d["estimate"][challenge]).all() and np.isnan(d["estimate"][~challenge]).all()
    assert (d["q"][challenge] >= d["estimate"][challenge] - 1e-9).all()  # prior 0.4 < 1 lowers the estimate
    w4 = A.is_wild_draw_four(Game(TWO).params, d["action"])
    assert set(d["holds_current"][w4]) <= {0, 1}
    assert (log.events[:, 0] < 40).all() and len(log.events_of(17)) == 40  # one round end per hand
    assert (log.hands["start_wilds"] + log.hands["start_actions"] <= 9).all()  # 7 dealt, 2 more on a Draw Two
    assert (log.hands["start_points"] > 0).all()


def test_challenge_truth_matches_the_engine():
    """The logged truth of a challenged Wild Draw Four is the engine's verdict."""
    log = A.play_logged(TWO, ["random"], 6, seed=3)
    d = log.decisions
    challenged = (d["phase"] == PH_CHALLENGE) & (d["action"] == Game(TWO).string_to_action("challenge"))
    verdicts = log.events_of(11)[:, 4]  # EV_CHALLENGE: challenger, offender, bluff
    assert challenged.sum() == len(verdicts) > 0
    assert np.array_equal(d["guilty"][challenged], verdicts)


def test_tactical_variant_without_options_is_tactical():
    game = Game(RuleConfig(num_players=3))
    variant = make_agent("tactical_variant", game, seed=0)
    tactical = make_agent("tactical", game, seed=0)
    decisions = 0
    for seed in range(30):
        state = game.init(seed=seed, dealer=2)
        for _ in range(40):
            if game.is_over(state):
                break
            obs, mask = game.observe(state, game.current_player(state)), game.legal_mask(state)
            assert variant(obs, mask) == tactical(obs, mask)
            game.step(state, tactical(obs, mask))
            decisions += 1
    assert decisions > 500


@pytest.mark.parametrize(
    ("spec", "check"),
    [
        ("tactical_variant:threshold=1", lambda d, g: not (d["action"] == g.string_to_action("challenge")).any()),
        (
            "tactical_variant:threshold=-1",
            lambda d, g: (d["action"][d["phase"] == PH_CHALLENGE] == g.string_to_action("challenge")).all(),
        ),
        ("tactical_variant:uno=false", lambda d, g: not (d["action"] == g.string_to_action("uno")).any()),
        ("tactical_variant:catch=false", lambda d, g: not (d["action"] == g.string_to_action("catch")).any()),
        (
            "tactical_variant:colour=first",
            lambda d, g: (
                all(g.action_to_string(int(a)).endswith(" R") for a in d["action"][d["face"] >= 52])
                and (d["action"][d["phase"] == PH_COLOR] == g.string_to_action("color R")).all()
            ),
        ),
        (
            "tactical_variant:bluff=false",
            lambda d, g: not (d["holds_current"][A.is_wild_draw_four(g.params, d["action"])] == 1).any(),
        ),
    ],
)
def test_tactical_variants_change_their_rule(spec, check):
    config = RuleConfig(num_players=2, episode="round")
    log = A.play_logged(config, [spec, "random_play"], 60, seed=4)
    mine = log.of(spec)
    d = {key: value[mine] for key, value in log.decisions.items()}
    assert check(d, Game(config))
    if spec == "tactical_variant:uno=false":  # it never calls, so it is caught and never wins... or is let go
        assert (log.decisions["phase"][log.of("random_play")] == PH_CATCH).any()


def test_tactical_variant_checks_its_options():
    with pytest.raises(ValueError, match="colour"):
        make_agent("tactical_variant:colour=blue", TWO)
    with pytest.raises(ValueError, match="uno"):
        make_agent("tactical_variant:uno=3", TWO)


def test_random_colour_variant_names_every_colour():
    log = A.play_logged(TWO, ["tactical_variant:colour=random", "tactical"], 80, seed=6)
    d = log.decisions
    wild = log.of(0) & (d["face"] >= 52)
    assert len(set((d["action"][wild] - 52) % 4)) == 4


def test_starter_frequencies_match_the_deck():
    result = A.starter_frequencies(RuleConfig(num_players=3), 30_000, seed=1, chunk=7_000)
    kinds = [k for k in result if k != "Wild Draw Four returned"]
    assert sum(result[k]["count"] for k in kinds) == 30_000
    assert sum(result[k]["exact"] for k in kinds) == pytest.approx(1.0)
    for value in result.values():
        p = value["exact"]
        sigma = np.sqrt(p * (1 - p) / 30_000)
        assert abs(value["count"] / 30_000 - p) < 5 * sigma
    fashion = A.starter_frequencies(RuleConfig(num_players=3, deck="fashion_trend"), 5_000, seed=1)
    assert fashion["Fashion Trend"]["count"] > 0 and fashion["Wild Draw Four returned"]["exact"] == 4 / 112
    assert A.starter_kind(0) == "number card" and A.starter_kind(10) == "Skip" and A.starter_kind(12) == "Draw Two"


def test_play_out_finishes_every_position():
    game = Game(TWO)
    states = [game.init(seed=s, dealer=1) for s in range(5)]
    first = [game.legal_actions(s)[0] for s in states]
    outcome, scores, held = A.play_out(game, states, first)
    assert (np.abs(outcome).sum(axis=1) == 2).all()  # one winner, one loser
    winners = outcome.argmax(axis=1)
    losers = 1 - winners
    rows = np.arange(5)
    assert np.array_equal(scores[rows, winners], held[rows, losers])  # the winner scores the loser's cards
    assert (held[rows, winners] == 0).all()
    assert not any(game.is_over(s) for s in states)  # the positions themselves are untouched


def test_uno_call_value():
    result = A.uno_call_value(TWO, 30, seed=2)
    n = result["positions"]
    assert n > 20
    for key in ("won_call", "won_forgot", "net_call", "net_forgot", "caught"):
        assert len(result[key]) == n
    assert result["caught"].mean() > 0.8  # tactical catches every forgetter it can
    assert result["net_call"].mean() > result["net_forgot"].mean()
    with pytest.raises(ValueError, match="no UNO call"):
        A.uno_call_value(TWO.replace(uno_call="off"), 2)


def test_combined_ratings_of_one_run_are_its_ratings():
    run = run_tournament(["keeper", "tactical", "random_play"], TWO, games=120, seed=1, bootstrap=0)
    combined = A.combined_ratings([run], bootstrap=0)
    for row in run[0]["leaderboard"]:
        assert combined[row["agent"]][0] == pytest.approx(row["rating"])
    other = run_tournament(["keeper", "naive"], TWO, games=40, seed=2, bootstrap=0)
    both = A.combined_ratings([run, other], bootstrap=5, seed=0)
    assert set(both) == {"keeper", "tactical", "random_play", "naive"}
    assert all(lo <= r <= hi for r, lo, hi in both.values())


def test_seat_win_rates():
    summary, schedule, entrants, records = run_tournament(["keeper", "tactical"], TWO, games=40, seed=1, bootstrap=0)
    seats = A.seat_win_rates(schedule, entrants, records)
    for row in summary["leaderboard"]:
        assert sum(w for w, _ in seats[row["agent"]]) == row["wins"]
        assert [g for _, g in seats[row["agent"]]] == [20, 20]


def test_logged_bluff_matches_the_engines_verdict():
    """A Wild Draw Four logged as played while holding the current colour is exactly the one
    the engine finds guilty at the challenge decision that follows it."""
    game = Game(TWO)
    log = A.play_logged(TWO, ["random_play"], 80, seed=8)
    d = log.decisions
    rows = np.flatnonzero(d["phase"] == PH_CHALLENGE)
    assert len(rows) > 10
    before = rows - 1  # the Wild Draw Four play just before each challenge decision
    assert A.is_wild_draw_four(game.params, d["action"][before]).all()
    assert np.array_equal(d["hand"][before], d["hand"][rows])
    assert np.array_equal(d["holds_current"][before], d["guilty"][rows])
