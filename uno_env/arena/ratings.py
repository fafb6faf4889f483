"""Win rates and ratings: Wilson intervals, a Luce (Bradley-Terry) model of who wins each
game fitted by minorization-maximization, the Elo scale, and bootstrap intervals."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np


def wilson_interval(wins: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion ``wins / n`` ((0, 1) when n == 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if wins <= 0 else max(0.0, centre - half)
    hi = 1.0 if wins >= n else min(1.0, centre + half)
    return lo, hi


def fit_luce(
    multiplicity: np.ndarray,
    credit: np.ndarray,
    weight: np.ndarray,
    prior: float = 1.0,
    start: np.ndarray | None = None,
) -> np.ndarray:
    """Strengths ``gamma`` of a Luce choice (Bradley-Terry) model of who wins a game.

    Game group g puts ``multiplicity[g, i]`` players of agent i at the table and is
    played ``weight[g]`` times; agent i won ``credit[g, i]`` of them (ties split).
    P(agent i wins) = m_i gamma_i / sum_j m_j gamma_j. Fitted by Hunter's MM
    algorithm; ``prior`` adds, for each pair of agents, one virtual two-player game
    that each wins half of, so that an agent that never (or always) wins keeps a
    finite rating. The geometric mean of gamma is 1."""
    k = multiplicity.shape[1]
    m = multiplicity.astype(np.float64)
    w = weight.astype(np.float64)
    c = credit.astype(np.float64)
    if prior > 0 and k > 1:
        pairs = list(itertools.combinations(range(k), 2))
        pm = np.zeros((len(pairs), k))
        pc = np.zeros((len(pairs), k))
        for row, (i, j) in enumerate(pairs):
            pm[row, [i, j]] = 1.0
            pc[row, [i, j]] = 0.5 * prior
        m = np.vstack([m, pm])
        c = np.vstack([c, pc])
        w = np.concatenate([w, np.full(len(pairs), prior)])
    wins = c.sum(axis=0)
    gamma = np.ones(k) if start is None else np.array(start, dtype=np.float64)
    for _ in range(20000):
        denom = (w / (m @ gamma))[:, None] * m
        new = wins / np.maximum(denom.sum(axis=0), 1e-300)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < 1e-10:
            gamma = new
            break
        gamma = new
    return gamma


def elo(gamma: np.ndarray) -> np.ndarray:
    """Strengths on the Elo scale, the mean at 1500."""
    r = 400.0 * np.log10(gamma)
    return r - r.mean() + 1500.0


@dataclass
class MatchTable:
    """Game results grouped for the rating fit: one row per (table composition, credit row)."""

    multiplicity: np.ndarray  # [rows, k]
    credit: np.ndarray  # [rows, k] credit of one game of the row
    count: np.ndarray  # [rows] games with exactly this composition and result
    group: np.ndarray  # [rows] index of the composition


def group_matches(multiplicity: np.ndarray, credit: np.ndarray) -> MatchTable:
    """Collapse per-game rows (``multiplicity[g]``, ``credit[g]``) into unique rows with counts,
    in a deterministic (sorted) order."""
    key = np.concatenate([multiplicity.astype(np.float64), credit.astype(np.float64)], axis=1)
    unique, counts = np.unique(key, axis=0, return_counts=True)
    k = multiplicity.shape[1]
    comps, group = np.unique(unique[:, :k], axis=0, return_inverse=True)
    return MatchTable(unique[:, :k], unique[:, k:], counts, group.ravel())


def bootstrap_ratings(
    table: MatchTable, samples: int, seed: int, prior: float = 1.0, start: np.ndarray | None = None
) -> np.ndarray:
    """Elo ratings of ``samples`` bootstrap replicates (games resampled with replacement
    within each table composition, which the schedule fixes)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((samples, table.multiplicity.shape[1]))
    groups = np.unique(table.group)
    for s in range(samples):
        counts = np.zeros_like(table.count)
        for g in groups:
            rows = np.flatnonzero(table.group == g)
            total = table.count[rows].sum()
            counts[rows] = rng.multinomial(total, table.count[rows] / total)
        out[s] = elo(fit_luce(table.multiplicity, table.credit * counts[:, None], counts, prior, start))
    return out
