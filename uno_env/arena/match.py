"""A sequential match of two agents (``uno match A B --sprt ...``): duplicate deals until the
SPRT of :mod:`.sprt` decides, or ``max_games``.

Deal ``d`` is played once per lineup of the ``field`` schedule (:func:`.schedule.field_lineups`:
A in one seat, or in both seats of one team, B in every other seat, A taking each seat or
team in turn), every game of it with the seeds of the deal (:func:`.tables.job_seeds`), so
that A and B are dealt the same cards from the same seats: at two players, each deal twice
with the seats exchanged, a pair of games. A deal's games are one unit of the test (the
pentanomial model; ``model="trinomial"``: each game is one). The LLR is checked after every
unit, so the decision and the games counted do not depend on how many games are played at
once: one seed gives one result.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from .analysis import match_results
from .runners import DealTables
from .schedule import Entrant, Schedule, field_lineups, make_entrants
from .sprt import MODELS, Categories, Hypotheses, elo_estimate, first_decision, score_of_elo
from .tables import concat_records, warn_failures

FIRST_CHUNK, LAST_CHUNK = 16, 512
"""Deals played at once by compiled agents: the first batch, doubling up to the last (a
decision that comes early plays few games past it; those are not counted)."""


def match_entrants(a: str, b: str, config) -> list[Entrant]:
    """The two entrants, checked; A and B may be the same spec (a test of the test)."""
    return [make_entrants([spec], config)[0] for spec in (a, b)]


def game_scores(config, lineups: list[tuple[int, ...]], records: dict) -> np.ndarray:
    """A's score of each game (A is entrant 0): its share of the win, the fair share
    ``1 / sides`` when no one won; a forfeit loses the game (as in the tournament)."""
    n = config.num_players
    teams = [s % config.num_teams for s in range(n)] if config.partners else list(range(n))
    matches = [[(j, s, s) for s in range(n)] for j in range(len(lineups))]
    schedule = Schedule("field", n, n, list(lineups), matches, list(lineups), len(lineups))
    _, credit, _, decided, _ = match_results(schedule, records, 2, teams)
    return np.where(decided, credit[:, 0], 1.0 / config.num_teams)


def run_match(
    a: str,
    b: str,
    config,
    hypotheses: Hypotheses | None,
    max_games: int = 100_000,
    seed: int = 0,
    workers: int = 1,
    model: str = "pentanomial",
    on_update: Callable[[dict], None] | None = None,
) -> dict:
    """Play duplicate deals of A against B until the test decides or ``max_games`` would be
    passed; returns the summary (``result``: "H1", "H0" or "inconclusive"; ``games``,
    ``llr``, the Elo estimate and its interval, the counts by category). ``on_update``
    is called with the summary so far after every batch of games. ``hypotheses`` None:
    no test, a fixed-size match of ``max_games`` (rounded down to whole deals)."""
    if model not in MODELS:
        raise ValueError(f"--model must be one of {', '.join(MODELS)}, got {model!r}")
    entrants = match_entrants(a, b, config)
    lineups = field_lineups(2, config.num_players, config.partners)
    per_deal = len(lineups)
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < per_deal:
        raise ValueError(f"--max-games must be at least {per_deal} (the games of one deal), got {max_games!r}")
    sides = config.num_teams
    categories = Categories(per_deal if model == "pentanomial" else 1, sides)
    compiled = all(e.policy_id is not None for e in entrants)
    state = MatchState(entrants, config, hypotheses, categories, model, seed)
    deals_max = max_games // per_deal
    chunk = FIRST_CHUNK if compiled else max(1, workers)
    start = time.perf_counter()
    with DealTables(config, entrants, seed, workers) as tables:
        while state.result is None and state.deals < deals_max:
            deals = range(state.deals, min(state.deals + chunk, deals_max))
            games = [(d, lineup) for d in deals for lineup in lineups]
            done: list[dict | None] = [None] * len(games)
            for i, rec in tables.play(games):
                done[i] = rec
            records = concat_records([r for r in done if r is not None], config.num_players)
            state.add(game_scores(config, [g[1] for g in games], records), records, len(deals))
            state.seconds = time.perf_counter() - start
            if on_update is not None:
                on_update(state.summary())
            chunk = min(2 * chunk, LAST_CHUNK) if compiled else chunk
    warn_failures(state.records())
    return state.summary()


class MatchState:
    """The counts so far, the LLR after each unit, and the decision."""

    def __init__(self, entrants, config, hypotheses: Hypotheses | None, categories: Categories, model: str, seed: int):
        self.entrants, self.config, self.hypotheses = entrants, config, hypotheses
        self.categories, self.model, self.seed = categories, model, seed
        self.counts = np.zeros(categories.size, dtype=np.int64)
        self.scores: list[float] = []
        self.parts: list[dict] = []
        self.deals = 0
        self.llr = 0.0
        self.result: str | None = None
        self.seconds = 0.0

    def add(self, scores: np.ndarray, records: dict, deals: int) -> None:
        """A batch's games (deal after deal), counted up to the unit at which the test decides."""
        units = self.categories.of(scores)
        onehot = np.zeros((len(units), self.categories.size), dtype=np.int64)
        onehot[np.arange(len(units)), units] = 1
        history = self.counts + np.cumsum(onehot, axis=0)
        stop, llrs = None, np.full(len(units), np.nan)
        if self.hypotheses is not None:
            stop, llrs = first_decision(history, self.hypotheses, self.categories.sides)
        used = len(units) if stop is None else stop + 1
        games = used * self.categories.games
        self.counts = history[used - 1]
        self.llr = float(llrs[used - 1])
        self.scores += [float(s) for s in scores[:games]]
        self.parts.append({key: value[:games] for key, value in records.items()})
        per_deal = len(scores) // deals
        self.deals += -(-games // per_deal)
        if stop is not None and self.hypotheses is not None:
            self.result = "H1" if self.llr >= self.hypotheses.upper else "H0"

    def records(self) -> dict:
        return concat_records(self.parts, self.config.num_players)

    def summary(self) -> dict:
        sides = self.categories.sides
        elo, lo, hi = elo_estimate(self.counts, sides)
        scores = np.array(self.scores)
        return {
            "a": self.entrants[0].label,
            "b": self.entrants[1].label,
            "result": self.result or "inconclusive",
            "games": len(self.scores),
            "deals": self.deals,
            "model": self.model,
            "counts": self.counts.tolist(),
            "elo": elo,
            "elo_interval": [lo, hi],
            "wins": int((scores == 1).sum()),
            "losses": int((scores == 0).sum()),
            "other": int(((scores > 0) & (scores < 1)).sum()),
            "win_share": float(scores.mean()) if len(scores) else None,
            "fair_share": 1.0 / sides,
            "players": self.config.num_players,
            "sides": sides,
            "seed": self.seed,
            "settings": self.config.to_dict(),
            "seconds": self.seconds,
            **self.test(),
        }

    def test(self) -> dict:
        """The test's part of the summary (none for a fixed-size match)."""
        h = self.hypotheses
        if h is None:
            return {}
        sides = self.categories.sides
        return {
            "llr": self.llr,
            "bounds": [h.lower, h.upper],
            "elo0": h.elo0,
            "elo1": h.elo1,
            "alpha": h.alpha,
            "beta": h.beta,
            "share_at_elo0": float(score_of_elo(h.elo0, sides)),
            "share_at_elo1": float(score_of_elo(h.elo1, sides)),
        }
