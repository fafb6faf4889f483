"""uno_env/arena/sprt.py: the LLR and the Elo estimate are fishtest's, and the test keeps its
error rates on synthetic outcomes of a known Elo (a simulation of seconds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from uno_env.arena.ratings import wilson_interval
from uno_env.arena.sprt import (
    Categories,
    Hypotheses,
    crossings,
    elo_estimate,
    elo_of_score,
    first_decision,
    llr,
    parse_sprt,
    score_of_elo,
)

FISHTEST = [
    # counts, LLR_logistic(0, 5), LLR_logistic(-3, 1), LLR_logistic(0, 50), get_elo: (elo, elo95)
    ([10, 40, 120, 50, 15], 0.5927474123163834, 0.6065561598366687, -4.687532725737673, 14.793426501268009,
     19.939459982465593),
    ([0, 33, 90, 45, 2], 0.7863793417637579, 0.7875054891639789, -4.5591148476360175, 16.359850455635613,
     18.468835565846067),
    ([3, 100, 5], 0.2401135912373003, 0.35436843478281566, -6.747045520075153, 6.434727957381963, 17.81417362102259),
    ([20, 5, 30], 0.15205952789682278, 0.128639360305961, 0.9597366433502288, 63.88033714700476, 91.11874126124624),
]  # fmt: skip
"""Computed by fishtest's own code (official-stockfish/fishtest at b8eecff,
server/fishtest/stats/LLRcalc.py ``LLR_logistic`` and stat_util.py ``get_elo``, with scipy)
on these counts: pentanomials (a zero included, which both regularize) and trinomials."""


@pytest.mark.parametrize("counts, llr_0_5, llr_m3_1, llr_0_50, elo, elo95", FISHTEST)
def test_the_llr_and_the_elo_estimate_are_fishtests(counts, llr_0_5, llr_m3_1, llr_0_50, elo, elo95):
    for (elo0, elo1), expected in zip([(0, 5), (-3, 1), (0, 50)], [llr_0_5, llr_m3_1, llr_0_50]):
        s0, s1 = (float(score_of_elo(e, 2)) for e in (elo0, elo1))
        assert llr(np.array(counts), s0, s1) == pytest.approx(expected, rel=1e-9, abs=1e-12)
    centre, lo, hi = elo_estimate(np.array(counts), 2)
    assert centre == pytest.approx(elo, rel=1e-9)
    assert (hi - lo) / 2 == pytest.approx(elo95, rel=1e-9)


def test_the_llr_of_many_counts_at_once_is_each_ones():
    counts = np.array([row[0] for row in FISHTEST[:2]])
    s0, s1 = (float(score_of_elo(e, 2)) for e in (0, 5))
    assert np.allclose(llr(counts, s0, s1), [FISHTEST[0][1], FISHTEST[1][1]], rtol=1e-9)


def test_the_bounds_and_the_spec():
    h = parse_sprt("elo0=0,elo1=5")
    assert (h.elo0, h.elo1, h.alpha, h.beta) == (0, 5, 0.05, 0.05)
    assert h.lower == pytest.approx(math.log(0.05 / 0.95)) and h.upper == pytest.approx(math.log(0.95 / 0.05))
    assert parse_sprt(" elo0=-3, elo1=1, alpha=0.1, beta=0.2") == Hypotheses(-3, 1, 0.1, 0.2)


@pytest.mark.parametrize(
    "text, message",
    [
        ("elo1=5", "give elo0"),
        ("elo0=0,elo1=5,gamma=1", "expected elo0=X"),
        ("elo0=0,elo1=x", "is not a number"),
        ("elo0=0,elo0=1,elo1=5", "given twice"),
        ("elo0=5,elo1=5", "must be below"),
        ("elo0=0,elo1=5,alpha=0.5", "alpha"),
        ("elo0=nan,elo1=5", "elo0"),
    ],
)
def test_a_bad_sprt_is_refused_naming_what(text, message):
    with pytest.raises(ValueError, match=message):
        parse_sprt(text)


def test_elo_on_the_win_share_against_the_fair_share():
    assert score_of_elo(0, 4) == pytest.approx(0.25) and score_of_elo(0, 2) == pytest.approx(0.5)
    assert score_of_elo(400, 2) == pytest.approx(10 / 11)  # 400 Elo: 10 to 1
    assert score_of_elo(400, 4) == pytest.approx(10 / 13)  # 10 to 1 against each of 3
    for sides in (2, 3, 6):
        assert elo_of_score(score_of_elo(123.0, sides), sides) == pytest.approx(123.0)


def test_a_units_category_is_its_mean_score_on_the_grid():
    pairs = Categories(2, 2)  # the pentanomial
    assert pairs.size == 5
    assert pairs.of(np.array([0, 0, 0, 0.5, 1, 0, 1, 0.5, 1, 1])).tolist() == [0, 1, 2, 3, 4]
    four = Categories(4, 4)  # A in each of 4 seats; a game without a winner scores 1/4
    assert four.of(np.array([1, 0, 0, 0.25])).tolist() == [5]


def test_the_first_decision_is_the_first_crossing():
    h = Hypotheses(0, 50)
    history = np.cumsum(np.tile([0, 0, 0, 0, 1], (40, 1)), axis=0)  # A wins every pair
    first, values = first_decision(history, h, 2)
    assert first is not None and values[first] >= h.upper and np.all(values[:first] < h.upper)
    assert first_decision(history[:first], h, 2)[0] is None


def simulate(elo: float, h: Hypotheses, sides: int, games: int, runs: int, draw: float, seed: int):
    """Rates of accepting H1 and H0 (and their 95% intervals) over ``runs`` tests on units of
    ``games`` independent games in which A, ``elo`` stronger, wins ``score_of_elo`` of them
    (``draw`` of them end without a winner and score the fair share)."""
    rng = np.random.default_rng(seed)
    categories = Categories(games, sides)
    share = float(score_of_elo(elo, sides))
    win = share - draw / sides  # the expected score stays ``share``
    horizon, block = 1500, 100
    u = rng.random((runs, horizon, games))
    scores = np.where(u < win, 1.0, np.where(u < win + draw, 1.0 / sides, 0.0))
    units = categories.of(scores.reshape(-1, games)).reshape(runs, horizon)
    history = np.cumsum(np.eye(categories.size, dtype=np.int32)[units], axis=1)
    accepted = {"H1": 0, "H0": 0}
    alive = np.arange(runs)
    for start in range(0, horizon, block):  # the LLR of the tests not yet decided, a block of units at a time
        first, values = crossings(history[alive, start : start + block], h, sides)
        final = values[np.arange(len(alive)), np.maximum(first, 0)]
        accepted["H1"] += int(((first >= 0) & (final >= h.upper)).sum())
        accepted["H0"] += int(((first >= 0) & (final <= h.lower)).sum())
        alive = alive[first < 0]
    return {k: (v / runs, wilson_interval(v, runs)) for k, v in accepted.items()}


@pytest.mark.parametrize(
    "sides, games, draw",
    [(2, 2, 0.05), (2, 1, 0.05), (4, 4, 0.0)],
    ids=["pentanomial", "trinomial", "four-players"],
)
def test_the_error_rates_are_at_most_alpha_and_beta_on_outcomes_of_known_elo(sides, games, draw):
    """1,000 tests at elo0 and 1,000 at elo1 (600 at four players, whose units are longer):
    the rate of the wrong decision is at most alpha (beta), within the simulation's own 95%
    interval."""
    h = Hypotheses(0, 40, alpha=0.05, beta=0.1)
    runs = 600 if sides == 4 else 1000
    at_elo0 = simulate(h.elo0, h, sides, games, runs, draw, seed=1)
    at_elo1 = simulate(h.elo1, h, sides, games, runs, draw, seed=2)
    assert at_elo0["H1"][1][0] <= h.alpha, at_elo0
    assert at_elo1["H0"][1][0] <= h.beta, at_elo1
    assert at_elo0["H0"][0] > 0.8 and at_elo1["H1"][0] > 0.75  # and it decides, mostly the right way


@pytest.mark.filterwarnings("ignore::uno_env.agents.ppo.TrainingMismatchWarning")  # ppo on the Seven-O ladder
def test_the_experiment_moves_real_pairs_to_a_true_difference_and_runs_in_seconds(capsys):
    """experiments/sprt.py: the distribution it draws pairs from has the expected score of the
    true difference and stays nearest the observed one; its smoke run writes every row."""
    from experiments import sprt as experiment

    counts = [637, 0, 2387, 0, 976]
    for elo in (-10, 0, 20):
        q = experiment.tilted(counts, elo)
        assert q @ np.linspace(0, 1, 5) == pytest.approx(float(score_of_elo(elo, 2)))
        assert q[2] == pytest.approx(counts[2] / sum(counts), abs=0.05)
    pairs, threshold = experiment.fixed_pairs(counts)
    assert pairs > 100 and 0.5 < threshold < float(score_of_elo(20, 2))
    assert experiment.main(["--smoke"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line and line[0].isalpha()]
    assert names[0] == "pairs" and "asn_0" in names and "match_seven_o_4p" in names and names[-1] == "ladder_seven_o_4p"
