"""The sequential test of ``uno match --sprt``: fishtest's generalized SPRT (GSPRT) on the
outcomes of duplicate deals, and the Elo estimate with its interval.

The formulas are fishtest's (official-stockfish/fishtest, ``server/fishtest/stats/LLRcalc.py``
and ``stat_util.py``, read at commit b8eecff): the results are counted by category (a
unit's mean score: for a two-player pair of games 0, 1/4, 1/2, 3/4 or 1, the pentanomial;
for single games 0, 1/2 or 1, the trinomial), a category never seen counts 1e-3
(``regularize``), and the log-likelihood ratio is the generalized one, ``N`` times the mean
of ``log q1 - log q0``, where ``q0`` and ``q1`` are the distributions on the same categories
closest to the observed one (maximum likelihood) whose expected score is ``s0`` and ``s1``
(``LLR_logistic``, with ``MLE_expected``'s secular equation solved here by a safeguarded
Newton iteration instead of scipy's brentq). The test stops when the LLR leaves
``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``: below, H0 (A is at most ``elo0``
stronger), above, H1 (at least ``elo1``). The tests check these values against fishtest's
on the same counts.

Elo at a table of more than two sides (the ``field`` schedule: A in one seat, or one team,
B in every other) is defined on the win share against the fair share, by the Luce model of
the tournament's ratings: A, ``d`` Elo stronger than B, wins ``1 / (1 + (sides - 1) 10^(-d/400))``
of the games, the fair share ``1 / sides`` at ``d = 0`` and the logistic of chess Elo at two
sides. A game without a winner scores the fair share.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

REGULARIZE = 1e-3
"""What a category never seen counts (fishtest's ``regularize``)."""
MODELS = ("pentanomial", "trinomial")
"""Units of the test: a deal's games together (the pentanomial at two players) or single games."""


@dataclass(frozen=True)
class Hypotheses:
    """H0: A is at most ``elo0`` stronger than B; H1: at least ``elo1``; ``alpha`` the rate of
    accepting H1 when H0 holds, ``beta`` of accepting H0 when H1 holds."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not math.isfinite(value) or abs(value) >= 2000:
                raise ValueError(f"--sprt {name}={value!r}: expected a number of Elo between -2000 and 2000")
        if not self.elo0 < self.elo1:
            raise ValueError(f"--sprt: elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise ValueError(f"--sprt {name}={value!r}: expected a probability above 0 and below 0.5")

    @property
    def lower(self) -> float:
        """The LLR at or below which the test accepts H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which the test accepts H1."""
        return math.log((1 - self.beta) / self.alpha)


def parse_sprt(text: str) -> Hypotheses:
    """``elo0=0,elo1=5[,alpha=0.05,beta=0.05]`` (cutechess-cli's ``-sprt`` words), checked."""
    values: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        if not sep or key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"--sprt {text!r}: expected elo0=X,elo1=Y[,alpha=A,beta=B], got {part.strip()!r}")
        if key in values:
            raise ValueError(f"--sprt {text!r}: {key} is given twice")
        try:
            values[key] = float(value)
        except ValueError:
            raise ValueError(f"--sprt {text!r}: {key}={value!r} is not a number") from None
    missing = [k for k in ("elo0", "elo1") if k not in values]
    if missing:
        raise ValueError(f"--sprt {text!r}: give {' and '.join(missing)}, e.g. --sprt elo0=0,elo1=20")
    return Hypotheses(**values)


def score_of_elo(elo, sides: int):
    """A's expected share of the wins when it is ``elo`` stronger than each of the ``sides - 1`` others."""
    return 1.0 / (1.0 + (sides - 1) * 10.0 ** (-np.asarray(elo, dtype=np.float64) / 400.0))


def elo_of_score(score, sides: int):
    """The Elo difference of a share of the wins (:func:`score_of_elo` inverted), the share
    kept within [0.001, 0.999] as fishtest's ``elo`` does."""
    s = np.clip(np.asarray(score, dtype=np.float64), REGULARIZE, 1 - REGULARIZE)
    return 400.0 * np.log10((sides - 1) * s / (1 - s))


@dataclass(frozen=True)
class Categories:
    """What one unit of the test scores: the mean of A's score in its ``games`` games (1 a
    win, 0 a loss, ``1 / sides`` a game without a winner, a share of a win split between
    winners), on the grid of multiples of ``1 / (games * sides)`` (at two players, pairs:
    the pentanomial's five categories; single games: the trinomial's three)."""

    games: int
    sides: int

    @property
    def size(self) -> int:
        return self.games * self.sides + 1

    @property
    def values(self) -> np.ndarray:
        return np.arange(self.size) / (self.size - 1)

    def of(self, scores: np.ndarray) -> np.ndarray:
        """The category of each unit; ``scores`` [units, games] are A's scores of its games."""
        mean = np.asarray(scores, dtype=np.float64).reshape(-1, self.games).mean(axis=1)
        return np.rint(mean * (self.size - 1)).astype(np.int64)


def secular_root(a: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The ``x`` with ``sum_i p_i a_i / (1 + x a_i) = 0`` for each row of ``p`` [..., C] over
    values ``a`` [C] with ``min a < 0 < max a`` (fishtest's ``secular``): the function falls
    from +inf to -inf on ``(-1 / max a, -1 / min a)``. Newton's steps from 0, a bisection
    wherever one would leave the bracket; each row until its step is below 1e-14."""
    shape = p.shape[:-1]
    p = p.reshape(-1, p.shape[-1])
    x = np.zeros(len(p))
    lo = np.full(len(p), -1.0 / a.max())
    hi = np.full(len(p), -1.0 / a.min())
    rows = np.arange(len(p))
    for _ in range(200):
        q, xr = p[rows], x[rows]
        d = 1.0 + xr[:, None] * a
        f = (q * a / d).sum(axis=-1)
        df = -(q * a * a / (d * d)).sum(axis=-1)
        lo[rows] = np.where(f > 0, xr, lo[rows])
        hi[rows] = np.where(f < 0, xr, hi[rows])
        step = xr - f / df
        inside = (step >= lo[rows]) & (step <= hi[rows])
        new = np.where(inside, step, 0.5 * (lo[rows] + hi[rows]))
        x[rows] = new
        going = (np.abs(new - xr) > 1e-14 * np.maximum(1.0, np.abs(xr))) & (f != 0)
        rows = rows[going]
        if not len(rows):
            break
    return x.reshape(shape)


def regularized(counts: np.ndarray) -> np.ndarray:
    """Counts [..., C] with every zero replaced by :data:`REGULARIZE`."""
    counts = np.asarray(counts, dtype=np.float64)
    return np.where(counts > 0, counts, REGULARIZE)


def llr(counts: np.ndarray, s0: float, s1: float) -> np.ndarray:
    """The generalized log-likelihood ratio of expected score ``s1`` against ``s0`` of counts
    [..., C] on the categories ``0, 1/(C-1), ..., 1`` (fishtest's ``LLR_logistic`` once the
    scores are given)."""
    r = regularized(counts)
    n = r.sum(axis=-1)
    p = r / n[..., None]
    values = np.linspace(0.0, 1.0, r.shape[-1])
    a0, a1 = values - s0, values - s1
    x0, x1 = secular_root(a0, p), secular_root(a1, p)
    jumps = np.log1p(x0[..., None] * a0) - np.log1p(x1[..., None] * a1)
    return n * (p * jumps).sum(axis=-1)


def decide(value, hypotheses: Hypotheses):
    """``"H1"``, ``"H0"`` or None (go on) for an LLR."""
    if value >= hypotheses.upper:
        return "H1"
    if value <= hypotheses.lower:
        return "H0"
    return None


def crossings(history: np.ndarray, hypotheses: Hypotheses, sides: int) -> tuple[np.ndarray, np.ndarray]:
    """For cumulative counts ``history`` [..., T, C] (one test per leading index, after each of
    T units): the first unit at which each test decides (-1: none does) and the LLR after
    every unit [..., T]."""
    s0, s1 = (float(score_of_elo(e, sides)) for e in (hypotheses.elo0, hypotheses.elo1))
    values = llr(history, s0, s1)
    crossed = (values >= hypotheses.upper) | (values <= hypotheses.lower)
    first = np.where(crossed.any(axis=-1), crossed.argmax(axis=-1), -1)
    return first, values


def first_decision(history: np.ndarray, hypotheses: Hypotheses, sides: int) -> tuple[int | None, np.ndarray]:
    """The first row of the cumulative counts ``history`` [T, C] at which the test decides
    (None: none does) and the LLR at every row."""
    first, values = crossings(history, hypotheses, sides)
    return (None if first < 0 else int(first)), values


def elo_estimate(counts: np.ndarray, sides: int, level: float = 0.95) -> tuple[float, float, float]:
    """A's Elo advantage and its ``level`` interval from counts by category (fishtest's ``get_elo``:
    the mean score of the regularized counts, its normal interval from the spread of the
    units' scores, each through :func:`elo_of_score`). A fixed-sample interval: it does not
    correct for the test having stopped when the LLR crossed a bound."""
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2)
    r = regularized(counts)
    values = np.linspace(0.0, 1.0, len(r))
    n = r.sum()
    mu = float((r * values).sum() / n)
    sd = math.sqrt(float((r * (values - mu) ** 2).sum() / n))
    half = z * sd / math.sqrt(n)
    return float(elo_of_score(mu, sides)), float(elo_of_score(mu - half, sides)), float(elo_of_score(mu + half, sides))
