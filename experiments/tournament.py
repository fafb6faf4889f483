"""``uno tournament``: agents against each other, with a leaderboard you can trust.

    uno tournament                                     # the demo: 5 agents, 4 players, 240 hands
    uno tournament --agents random,naive,keeper,tactical --players 2 --games 20000
    uno tournament --agents keeper,tactical,ismcts:determinizations=400 --players 2 --games 2000
    uno tournament --agents random,naive,keeper,tactical --players 4 --schedule rotate --games 400
    uno tournament --episode game --set deck=fashion_trend --set target_score=200

A *game* of the tournament (``--games`` counts them) is one hand by default
(RuleConfig ``episode="round"``); ``--episode game`` plays whole games to the
target score. Every RuleConfig setting is reachable with ``--set KEY=VALUE``.

Schedules (``--schedule``):

* ``mixed`` (default): with at least as many agents as seats, every combination
  of ``--players`` agents is a table; with fewer, tables repeat the agents in turn
  (``A B A B``) and every agent starts the pattern equally often. Each table is
  played in every seating (all orders up to 4 players, rotations above), so every
  agent sits in every seat equally often. With two players this is a round robin.
* ``rotate``: rotating partners (R-VAR-ROTATE, D-VARIANTS) for 4 or 8 players at
  4-player partner tables: with 4 players 3 hands, one per pairing, so that each
  player partners each other player; with 8 players at two tables, 28 hands in
  which each player partners each other player four times. Individual totals
  (the team's points of each hand) are kept across partnerships and the highest
  total wins; a game of the tournament is one such rotation.

The dealer of every game is the last seat, so seat 0 plays first (R-SETUP-3):
the per-seat win rates measure the first-player advantage. ``--games`` is
rounded up so that every seating is played equally often.

Agents that wrap a compiled policy play inside one parallel compiled call
(``uno_env.policies.play_batch``, every numba thread); games with other agents (``ismcts``)
run in ``--workers`` processes. ``--ray [ADDRESS]`` plays the same games as Ray
tasks on a cluster (or a local Ray): see ``experiments/distributed.py`` and
docs/SCALE.md. One seed gives the same results in any process, with any number of
workers, locally or on Ray.

The leaderboard: win rate with a 95% Wilson interval, mean points per hand, a
Bradley-Terry rating on the Elo scale (a Luce choice model of who wins each game,
400 points = 10:1 odds, the field's mean at 1500) with a 95% bootstrap interval,
per-seat win rates and the distribution of hand lengths (decisions per hand).
Files: ``<out>/<name>.json``, ``<name>_leaderboard.csv``, ``<name>_games.csv`` and
``<name>.png`` (ratings and win rates with intervals, hand lengths).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from agents.base import Agent

DEFAULT_AGENTS = "random,naive,keeper,tactical,ismcts"
DEFAULT_PLAYERS = 4
DEFAULT_GAMES = 240
COMPILED_CHUNK = 2048  # games per compiled call (progress granularity)


# ---------------------------------------------------------------------------- statistics
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


# ---------------------------------------------------------------------------- entrants and schedules
@dataclass
class Entrant:
    label: str  # the spec as given, e.g. "ismcts:determinizations=64"
    name: str
    options: dict
    policy_id: int | None  # compiled policy id, None for Python agents


def make_entrants(specs: list[str], config) -> list[Entrant]:
    """Entrants of agent specs, checked (unknown names, bad options, duplicates)."""
    from agents import make_agent, parse_agent_spec

    if not specs:
        raise ValueError("--agents: give at least one agent")
    seen = set()
    entrants = []
    for spec in specs:
        if spec in seen:
            raise ValueError(f"--agents: {spec!r} is listed twice")
        seen.add(spec)
        name, options = parse_agent_spec(spec)
        if name == "human":
            raise ValueError("--agents: 'human' plays in 'uno play', not in a tournament")
        agent = make_agent(spec, config, seed=0)  # checks the options now, in this process
        entrants.append(Entrant(spec, name, options, agent.policy_id))
    return entrants


def seatings(table: tuple[int, ...], orders: str) -> list[tuple[int, ...]]:
    """Every seating of a table: all orders (``permutations``) or its rotations."""
    n = len(table)
    if orders == "permutations":
        seen = []
        for perm in itertools.permutations(table):
            if perm not in seen:
                seen.append(perm)
        return seen
    return [tuple(table[(s + r) % n] for s in range(n)) for r in range(n)]


def mixed_lineups(num_agents: int, players: int, orders: str | None = None) -> list[tuple[int, ...]]:
    """Lineups (agent index per seat) of the ``mixed`` schedule; every agent sits in every
    seat equally often over the list."""
    if orders is None:
        orders = "permutations" if players <= 4 else "rotations"
    if num_agents >= players:
        tables = list(itertools.combinations(range(num_agents), players))
        lineups = []
        for table in tables:
            lineups += seatings(table, orders)
        return lineups
    lineups = []
    for j in range(num_agents):
        base = tuple((j + s) % num_agents for s in range(players))
        lineups += [tuple(base[(s + r) % players] for s in range(players)) for r in range(players)]
    return lineups


ROTATE_4 = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))
# How the 56 tables of the 8-player rotation are seated (bit 0: the second pair takes seats
# 0 and 2, bit 1 / bit 2: the first / second pair swap seats), found once by a seeded local
# search so that every player sits in every seat in 7 of its 28 hands (a test checks it).
ROTATE_8_SEATING = (
    2, 2, 6, 2, 0, 6, 2, 3, 0, 5, 5, 2, 6, 2, 1, 4, 0, 5, 7, 6, 5, 4, 3, 5, 0, 2, 5, 1,
    7, 5, 4, 1, 1, 0, 1, 0, 4, 6, 2, 4, 5, 0, 1, 4, 1, 6, 0, 4, 6, 5, 1, 7, 6, 1, 7, 7,
)  # fmt: skip


def rotate_hands(players: int) -> list[list[tuple[int, int, int, int]]]:
    """The R-VAR-ROTATE schedule: for each hand, the tables as player numbers by seat
    (seats 0 and 2 are partners, 1 and 3 are partners). 4 players: 3 hands at one table,
    each player partnering each other once. 8 players: 28 hands at two tables, from the
    7 perfect matchings of the round-robin circle method played four times with the
    pairs grouped into tables in different ways (the last grouping repeats the first);
    each player partners each other player in four hands and sits in every seat in 7."""
    if players == 4:
        return [[(a[0], b[0], a[1], b[1])] for a, b in ROTATE_4]
    if players != 8:
        raise ValueError(f"rotating partners (R-VAR-ROTATE) is for 4 or 8 players, got {players}")
    matchings = []
    for r in range(7):
        matchings.append([(7, r)] + [((r + i) % 7, (r - i) % 7) for i in range(1, 4)])
    groupings = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)), ((0, 1), (2, 3)))
    hands = []
    k = 0
    for grouping in groupings:
        for pairs in matchings:
            tables = []
            for x, y in grouping:
                a, b = pairs[x], pairs[y]
                option = ROTATE_8_SEATING[k]
                k += 1
                if option & 1:
                    a, b = b, a
                if option & 2:
                    a = (a[1], a[0])
                if option & 4:
                    b = (b[1], b[0])
                tables.append((a[0], b[0], a[1], b[1]))
            hands.append(tables)
    return hands


@dataclass
class Schedule:
    kind: str
    players: int  # players in a game of the tournament (8 for two-table rotation)
    table_players: int  # seats at one table
    jobs: list[tuple[int, ...]]  # lineup (entrant index per seat) of every table game
    matches: list[list[tuple[int, int, int]]]  # per game of the tournament: (job, seat, player)
    match_players: list[tuple[int, ...]]  # entrant of each player of each game of the tournament
    per_cycle: int  # games of the tournament for every seating to come up equally often

    @property
    def num_matches(self) -> int:
        return len(self.matches)


def build_schedule(kind: str, num_agents: int, players: int, games: int, orders: str | None = None) -> Schedule:
    """The tables of a tournament of ``games`` games (rounded up to whole cycles)."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"--games must be a positive integer, got {games!r}")
    if kind == "mixed":
        lineups = mixed_lineups(num_agents, players, orders)
        cycles = -(-games // len(lineups))
        jobs = [lineup for _ in range(cycles) for lineup in lineups]
        matches = [[(j, s, s) for s in range(players)] for j in range(len(jobs))]
        return Schedule(kind, players, players, jobs, matches, list(jobs), len(lineups))
    if kind == "rotate":
        hands = rotate_hands(players)
        # which entrant each player is: every combination of entrants (or, with fewer
        # entrants than players, each of them starting the repeated list); with 4 players
        # the seats also turn by one per round of combinations (3 hands cannot balance 4
        # seats), with 8 the schedule itself is seat-balanced
        if num_agents >= players:
            groups = list(itertools.combinations(range(num_agents), players))
        else:
            groups = [tuple((j + p) % num_agents for p in range(players)) for j in range(num_agents)]
        turns = 4 if players == 4 else 1
        per_cycle = len(groups) * turns
        cycles = -(-games // per_cycle)
        jobs = []
        matches = []
        match_players = []
        for c in range(cycles * per_cycle):
            who = groups[c % len(groups)]
            turn = (c // len(groups)) % turns
            match = []
            for tables in hands:
                for table in tables:
                    seated = tuple(table[(seat - turn) % 4] for seat in range(4))
                    match += [(len(jobs), seat, seated[seat]) for seat in range(4)]
                    jobs.append(tuple(who[p] for p in seated))
            matches.append(match)
            match_players.append(who)
        return Schedule(kind, players, 4, jobs, matches, match_players, per_cycle)
    raise ValueError(f"--schedule must be 'mixed' or 'rotate', got {kind!r}")


# ---------------------------------------------------------------------------- playing
RECORD_FIELDS = ("outcome", "scores", "last_winner", "steps", "rounds", "truncated", "seconds", "agent_seconds")


def job_seeds(seed: int, job: int) -> tuple[int, int]:
    """(game seed, policy generator seed) of a table game."""
    from agents import hash_seed

    return hash_seed(seed, job, 0), hash_seed(seed, job, 1)


def empty_records(count: int, n: int) -> dict[str, np.ndarray]:
    return {
        "outcome": np.zeros((count, n), dtype=np.int64),
        "scores": np.zeros((count, n), dtype=np.int64),
        "last_winner": np.full(count, -1, dtype=np.int64),
        "steps": np.zeros(count, dtype=np.int64),
        "rounds": np.zeros(count, dtype=np.int64),
        "truncated": np.zeros(count, dtype=bool),
        "seconds": np.zeros(count, dtype=np.float64),
        "agent_seconds": np.zeros((count, n), dtype=np.float64),
    }


def read_results(game, state, b: int, rec: dict, row: int) -> None:
    from uno_env.engine.layout import P_I_OUTCOME, P_I_SCORE, S_LAST_WINNER, S_ROUND, S_STEP, S_TRUNCATED

    P = game.params
    n = game.num_players
    ints = state.ints[b]
    rec["outcome"][row] = ints[P[P_I_OUTCOME] : P[P_I_OUTCOME] + n]
    rec["scores"][row] = ints[P[P_I_SCORE] : P[P_I_SCORE] + n]
    rec["last_winner"][row] = ints[S_LAST_WINNER]
    rec["steps"][row] = ints[S_STEP]
    rec["rounds"][row] = ints[S_ROUND] + 1
    rec["truncated"][row] = bool(ints[S_TRUNCATED])


def play_compiled(config, lineups: list[tuple[int, ...]], policy_ids: list[int], jobs: list[int], seed: int):
    """Table games whose seats all play compiled policies, in one parallel compiled call."""
    from uno_env import policies as PO
    from uno_env.engine import Game
    from uno_env.engine import kernels as K
    from uno_env.engine.game import seed_to_rng

    game = Game(config)
    n = game.num_players
    size = len(jobs)
    state = game.new_state(size, events=False)
    prng = np.zeros(size, dtype=np.uint64)
    for b, job in enumerate(jobs):
        game_seed, policy_seed = job_seeds(seed, job)
        state.rng[b] = seed_to_rng(game_seed)
        prng[b] = seed_to_rng(policy_seed)
    K.reset_batch(state.cards, state.ints, state.rng, game.params, np.full(size, n - 1, np.int64), state.ev, state.evn)
    seat_policies = np.array([[policy_ids[e] for e in lineups[job]] for job in jobs], dtype=np.int64)
    rewards = np.zeros((size, n), dtype=np.float32)
    steps = np.zeros(size, dtype=np.int64)
    start = time.perf_counter()
    PO.play_batch(
        state.cards,
        state.ints,
        state.rng,
        prng,
        game.params,
        seat_policies,
        False,
        config.max_steps + 1,
        rewards,
        steps,
    )
    elapsed = time.perf_counter() - start
    rec = empty_records(size, n)
    for b in range(size):
        read_results(game, state, b, rec, b)
    rec["seconds"][:] = elapsed / size
    return rec


class TablePlayer:
    """Plays table games one decision at a time from Python (for agents that are not
    compiled policies). Compiled entrants use the game's policy generator exactly as
    ``play_batch`` does, so a table of compiled agents gives the same game either way."""

    def __init__(self, config, entrants: list[Entrant], seed: int, extras: dict | None = None):
        from agents import agent_names, register_agent
        from uno_env.engine import Game

        for name, factory in (extras or {}).items():
            if name not in agent_names():
                register_agent(name, factory)
        self.game = Game(config)
        self.entrants = entrants
        self.seed = seed
        self.agents: dict[tuple[int, int], Agent] = {}

    def agent(self, entrant: int, seat: int) -> Agent:
        from agents import make_agent

        key = (entrant, seat)
        if key not in self.agents:
            self.agents[key] = make_agent(self.entrants[entrant].label, self.game, seed=0)
        return self.agents[key]

    def play(self, job: int, lineup: tuple[int, ...]) -> dict:
        from agents import hash_seed
        from uno_env import policies as PO
        from uno_env.engine import kernels as K
        from uno_env.engine.game import seed_to_rng
        from uno_env.engine.layout import P_A_LEN, P_O_LEN, PH_OVER, S_CURRENT, S_PHASE

        game = self.game
        P = game.params
        n = game.num_players
        game_seed, policy_seed = job_seeds(self.seed, job)
        state = game.new_state(1, events=False)
        state.rng[0] = seed_to_rng(game_seed)
        K.reset_batch(state.cards, state.ints, state.rng, P, np.full(1, n - 1, np.int64), state.ev, state.evn)
        prng = np.array([seed_to_rng(policy_seed)], dtype=np.uint64)
        players: list[Agent | None] = []  # None: a compiled policy, played by the kernel
        for seat, e in enumerate(lineup):
            if self.entrants[e].policy_id is not None:
                players.append(None)
            else:
                agent = self.agent(e, seat)
                agent.reset(hash_seed(self.seed, job, 2 + seat))
                players.append(agent)
        obs = np.zeros(P[P_O_LEN], dtype=np.float32)
        mask = np.zeros(P[P_A_LEN], dtype=np.int8)
        rewards = np.zeros((1, n), dtype=np.float32)
        agent_seconds = np.zeros(n)
        start = time.perf_counter()
        while state.ints[0, S_PHASE] != PH_OVER:
            seat = int(state.ints[0, S_CURRENT])
            K.observe(state.cards, state.ints, P, 0, seat, obs)
            K.legal_mask(state.cards, state.ints, P, 0, mask)
            entrant = self.entrants[lineup[seat]]
            player = players[seat]
            if player is None:
                action = int(PO.policy_act(entrant.policy_id, obs, mask, P, prng, 0))
            else:
                t = time.perf_counter()
                action = int(player(obs, mask))
                agent_seconds[seat] += time.perf_counter() - t
            status = K.step_game(state.cards, state.ints, state.rng, P, 0, action, rewards, state.ev, state.evn)
            if status < 0:
                legal = ", ".join(game.action_to_string(int(a)) for a in np.flatnonzero(mask))
                text = game.action_to_string(action) if 0 <= action < game.num_actions else str(action)
                raise RuntimeError(
                    f"agent {entrant.label!r} at seat {seat} chose {text!r}, which the engine refused "
                    f"(status {status}); legal were: {legal}"
                )
        rec = empty_records(1, n)
        read_results(game, state, 0, rec, 0)
        rec["seconds"][0] = time.perf_counter() - start
        rec["agent_seconds"][0] = agent_seconds
        return rec


_WORKER: TablePlayer | None = None


def _worker_init(config, entrants, seed, extras) -> None:
    global _WORKER
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    _WORKER = TablePlayer(config, entrants, seed, extras)


def _worker_play(task: tuple[int, tuple[int, ...]]) -> dict:
    assert _WORKER is not None
    return _WORKER.play(*task)


def warm_up(config, entrants: list[Entrant], seed: int, lineups: list[tuple[int, ...]]) -> None:
    """Let every Python agent act once in this process, so that its compiled parts are
    compiled and cached on disk here once, not in every worker at the same time."""
    from uno_env.engine import Game

    game = Game(config)
    for k in range(50):  # a first decision with a choice, so that a search runs
        state = game.init(seed=seed + k, dealer=config.num_players - 1)
        seat = game.current_player(state)
        obs, mask = game.observe(state, seat), game.legal_mask(state)
        if mask.sum() >= 3:
            break
    player = TablePlayer(config, entrants, seed)
    done = set()
    for lineup in lineups:
        for e in lineup:
            if entrants[e].policy_id is None and e not in done:
                done.add(e)
                player.agent(e, seat)(obs, mask)


def concat_records(parts: list[dict], n: int) -> dict:
    if not parts:
        return empty_records(0, n)
    return {k: np.concatenate([p[k] for p in parts]) for k in RECORD_FIELDS}


def run_jobs(
    config, entrants, schedule: Schedule, seed: int, workers: int | None, progress: bool, ray: str | None = None
) -> dict:
    """Play every table game of the schedule; records in job order. ``ray``: play them as
    Ray tasks on the cluster at that address ("local": a local Ray), same results."""
    from tqdm import tqdm

    from agents import registered_extras

    n = config.num_players
    total = len(schedule.jobs)
    if ray is not None:
        from experiments.distributed import run_jobs_on_ray

        return run_jobs_on_ray(config, entrants, schedule, seed, ray, workers, progress, empty_records(total, n))
    workers = workers or 2
    compiled = [j for j, lineup in enumerate(schedule.jobs) if all(entrants[e].policy_id is not None for e in lineup)]
    python = [j for j, lineup in enumerate(schedule.jobs) if any(entrants[e].policy_id is None for e in lineup)]
    records = empty_records(total, n)
    policy_ids = [e.policy_id if e.policy_id is not None else -1 for e in entrants]
    with tqdm(total=total, unit="game", disable=not progress, file=sys.stderr, smoothing=0.05) as bar:
        for start in range(0, len(compiled), COMPILED_CHUNK):
            chunk = compiled[start : start + COMPILED_CHUNK]
            rec = play_compiled(config, schedule.jobs, policy_ids, chunk, seed)
            for key in RECORD_FIELDS:
                records[key][chunk] = rec[key]
            bar.update(len(chunk))
        tasks = [(j, schedule.jobs[j]) for j in python]
        if tasks and workers <= 1:
            player = TablePlayer(config, entrants, seed)
            for j, lineup in tasks:
                rec = player.play(j, lineup)
                for key in RECORD_FIELDS:
                    records[key][j] = rec[key][0]
                bar.update(1)
        elif tasks:
            import multiprocessing

            warm_up(config, entrants, seed, [lineup for _, lineup in tasks])
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(
                workers, initializer=_worker_init, initargs=(config, entrants, seed, registered_extras())
            ) as pool:
                for (j, _), rec in zip(tasks, pool.imap(_worker_play, tasks, chunksize=1)):
                    for key in RECORD_FIELDS:
                        records[key][j] = rec[key][0]
                    bar.update(1)
    return records


# ---------------------------------------------------------------------------- analysis
def match_results(schedule: Schedule, records: dict, num_agents: int):
    """Per game of the tournament: the multiplicity of each entrant, the win credit of each
    entrant (1 split among the winners' entrants), and the set of winning entrants."""
    count = schedule.num_matches
    multiplicity = np.zeros((count, num_agents))
    credit = np.zeros((count, num_agents))
    won = np.zeros((count, num_agents), dtype=bool)
    decided = np.zeros(count, dtype=bool)
    totals = []
    for m, entries in enumerate(schedule.matches):
        who = schedule.match_players[m]
        for e in who:
            multiplicity[m, e] += 1
        if schedule.kind == "rotate":
            points = np.zeros(len(who))
            truncated = False
            for job, seat, player in entries:
                points[player] += records["scores"][job, seat]
                truncated |= bool(records["truncated"][job])
            totals.append(points)
            winners = np.flatnonzero(points == points.max()) if not truncated else np.array([], dtype=int)
        else:
            job = entries[0][0]
            winners = np.flatnonzero(records["outcome"][job] > 0)
        if len(winners):
            decided[m] = True
            for p in winners:
                credit[m, who[p]] += 1.0 / len(winners)
                won[m, who[p]] = True
    return multiplicity, credit, won, decided, totals


def length_stats(values: np.ndarray) -> dict:
    if len(values) == 0:
        return {}
    q = np.percentile(values, [10, 50, 90, 99])
    return {
        "mean": float(np.mean(values)),
        "median": float(q[1]),
        "p10": float(q[0]),
        "p90": float(q[2]),
        "p99": float(q[3]),
        "max": int(np.max(values)),
    }


def analyse(config, entrants, schedule: Schedule, records: dict, seed: int, bootstrap: int) -> dict:
    k = len(entrants)
    n = config.num_players
    multiplicity, credit, won, decided, _ = match_results(schedule, records, k)
    present = multiplicity > 0
    hands = records["rounds"]
    per_hand_steps = records["steps"] / np.maximum(hands, 1)
    leaderboard = []
    ratings: np.ndarray | None = None
    rating_lo: np.ndarray | None = None
    rating_hi: np.ndarray | None = None
    if k > 1:
        table = group_matches(multiplicity[decided], credit[decided])
        gamma = fit_luce(table.multiplicity, table.credit * table.count[:, None], table.count)
        ratings = elo(gamma)
        if bootstrap > 0:
            boot = bootstrap_ratings(table, bootstrap, seed, start=gamma)
            rating_lo, rating_hi = np.percentile(boot, [2.5, 97.5], axis=0)
    lineups = np.array(schedule.jobs, dtype=np.int64).reshape(len(schedule.jobs), -1)
    for i, entrant in enumerate(entrants):
        games = int(present[:, i].sum())
        wins = int(won[present[:, i], i].sum())
        lo, hi = wilson_interval(wins, games)
        seated = lineups == i  # [jobs, seats]
        seat_hands = int((seated * hands[:, None]).sum())
        points = float(records["scores"][seated].sum())
        seconds = float(records["agent_seconds"][seated].sum())
        seat_steps = per_hand_steps[seated.any(axis=1)]
        row = {
            "agent": entrant.label,
            "games": games,
            "wins": wins,
            "win_rate": wins / games if games else 0.0,
            "win_rate_ci": [lo, hi],
            "table_share": float(np.mean(multiplicity[present[:, i], i] / multiplicity[present[:, i]].sum(axis=1)))
            if games
            else 0.0,
            "points_per_hand": points / max(seat_hands, 1),
            "mean_hand_length": float(np.mean(seat_steps)) if len(seat_steps) else 0.0,
            "rating": float(ratings[i]) if ratings is not None else None,
            "rating_ci": [float(rating_lo[i]), float(rating_hi[i])]
            if rating_lo is not None and rating_hi is not None
            else None,
            "seconds_per_hand": seconds / max(seat_hands, 1) if entrant.policy_id is None else None,
        }
        leaderboard.append(row)
    order = sorted(
        range(k), key=lambda i: (-(leaderboard[i]["rating"] or 0.0), -leaderboard[i]["win_rate"], entrants[i].label)
    )
    leaderboard = [leaderboard[i] for i in order]
    seats = []
    for s in range(n):
        wins = int((records["outcome"][:, s] > 0).sum())
        total = len(schedule.jobs)
        lo, hi = wilson_interval(wins, total)
        seats.append({"seat": s, "games": total, "wins": wins, "win_rate": wins / total, "win_rate_ci": [lo, hi]})
    lengths = length_stats(per_hand_steps)
    lengths["truncated"] = int(records["truncated"].sum())
    lengths["unit"] = "decisions per hand"
    if config.episode == "game":
        lengths["hands_per_game"] = length_stats(hands)
    result = {
        "leaderboard": leaderboard,
        "seats": seats,
        "hand_length": lengths,
        "undecided_games": int((~decided).sum()),
    }
    if schedule.kind == "mixed" and n == 2 and k > 1:
        h2h: dict[str, dict[str, dict]] = {}
        for a in range(k):
            for b in range(k):
                if a == b:
                    continue
                both = present[:, a] & present[:, b] & (multiplicity[:, a] == 1) & (multiplicity[:, b] == 1)
                games = int(both.sum())
                if games:
                    wins = int(won[both, a].sum())
                    lo, hi = wilson_interval(wins, games)
                    h2h.setdefault(entrants[a].label, {})[entrants[b].label] = {
                        "games": games,
                        "wins": wins,
                        "win_rate": wins / games,
                        "win_rate_ci": [lo, hi],
                    }
        result["head_to_head"] = h2h
    return result


# ---------------------------------------------------------------------------- output
def format_leaderboard(summary: dict) -> str:
    rows = summary["leaderboard"]
    width = max([len(r["agent"]) for r in rows] + [5])
    lines = [
        f"{'agent':<{width}}  {'games':>6}  {'win rate':>8}  {'95% CI':>15}  {'pts/hand':>8}  "
        f"{'rating':>6}  {'95% CI':>13}  {'len':>5}  {'s/hand':>6}"
    ]
    for r in rows:
        ci = f"[{r['win_rate_ci'][0]:.3f}, {r['win_rate_ci'][1]:.3f}]"
        rating = f"{r['rating']:6.0f}" if r["rating"] is not None else f"{'-':>6}"
        rci = f"[{r['rating_ci'][0]:.0f}, {r['rating_ci'][1]:.0f}]" if r["rating_ci"] is not None else "-"
        secs = f"{r['seconds_per_hand']:6.3f}" if r["seconds_per_hand"] is not None else f"{'-':>6}"
        lines.append(
            f"{r['agent']:<{width}}  {r['games']:>6}  {r['win_rate']:8.3f}  {ci:>15}  {r['points_per_hand']:8.1f}  "
            f"{rating}  {rci:>13}  {r['mean_hand_length']:5.0f}  {secs}"
        )
    seats = "  ".join(
        f"seat {s['seat']}: {s['win_rate']:.3f} [{s['win_rate_ci'][0]:.3f}, {s['win_rate_ci'][1]:.3f}]"
        for s in summary["seats"]
    )
    lines.append("")
    lines.append(f"per-seat win rate (seat 0 plays first): {seats}")
    hl = summary["hand_length"]
    if "mean" in hl:
        lines.append(
            f"hand length (decisions): mean {hl['mean']:.0f}, median {hl['median']:.0f}, "
            f"10-90% {hl['p10']:.0f}-{hl['p90']:.0f}, max {hl['max']}; truncated {hl['truncated']}"
        )
    if "hands_per_game" in hl:
        hg = hl["hands_per_game"]
        lines.append(f"hands per game: mean {hg['mean']:.1f}, median {hg['median']:.0f}, max {hg['max']}")
    if summary.get("head_to_head"):
        lines.append("")
        lines.append("head to head (row's win rate against column):")
        labels = [r["agent"] for r in rows]
        lines.append(" " * (width + 2) + "  ".join(f"{lab[:12]:>12}" for lab in labels))
        for a in labels:
            cells = []
            for b in labels:
                cell = summary["head_to_head"].get(a, {}).get(b)
                cells.append(f"{cell['win_rate']:12.3f}" if cell else f"{'-':>12}")
            lines.append(f"{a:<{width}}  " + "  ".join(cells))
    return "\n".join(lines)


def write_outputs(out: Path, name: str, summary: dict, schedule: Schedule, entrants, records) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    path = out / f"{name}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    paths.append(path)
    path = out / f"{name}_leaderboard.csv"
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            [
                "agent",
                "games",
                "wins",
                "win_rate",
                "win_rate_lo",
                "win_rate_hi",
                "points_per_hand",
                "rating",
                "rating_lo",
                "rating_hi",
                "mean_hand_length",
                "seconds_per_hand",
            ]
        )
        for r in summary["leaderboard"]:
            writer.writerow(
                [
                    r["agent"],
                    r["games"],
                    r["wins"],
                    f"{r['win_rate']:.6f}",
                    f"{r['win_rate_ci'][0]:.6f}",
                    f"{r['win_rate_ci'][1]:.6f}",
                    f"{r['points_per_hand']:.4f}",
                    "" if r["rating"] is None else f"{r['rating']:.2f}",
                    "" if r["rating_ci"] is None else f"{r['rating_ci'][0]:.2f}",
                    "" if r["rating_ci"] is None else f"{r['rating_ci'][1]:.2f}",
                    f"{r['mean_hand_length']:.2f}",
                    "" if r["seconds_per_hand"] is None else f"{r['seconds_per_hand']:.5f}",
                ]
            )
    paths.append(path)
    path = out / f"{name}_games.csv"
    n = records["outcome"].shape[1]
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            ["table_game", "match"]
            + [f"seat{s}_agent" for s in range(n)]
            + [f"seat{s}_outcome" for s in range(n)]
            + [f"seat{s}_score" for s in range(n)]
            + ["went_out", "decisions", "hands", "truncated"]
        )
        match_of = {}
        for m, entries in enumerate(schedule.matches):
            for job, _, _ in entries:
                match_of[job] = m
        for j, lineup in enumerate(schedule.jobs):
            writer.writerow(
                [j, match_of.get(j, j)]
                + [entrants[e].label for e in lineup]
                + records["outcome"][j].tolist()
                + records["scores"][j].tolist()
                + [int(records["last_winner"][j]), int(records["steps"][j]), int(records["rounds"][j])]
                + [int(records["truncated"][j])]
            )
    paths.append(path)
    path = out / f"{name}.png"
    plot(path, summary, records)
    paths.append(path)
    return paths


def plot(path: Path, summary: dict, records: dict) -> None:
    """Ratings and win rates with their intervals, and the hand-length histogram."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = summary["leaderboard"]
    labels = [r["agent"] for r in rows]
    y = np.arange(len(rows))[::-1]
    fig = plt.figure(figsize=(14, max(3.5, 0.45 * len(rows) + 2.0)))
    grid = fig.add_gridspec(1, 3, width_ratios=[1.0, 1.0, 0.9])
    ax = fig.add_subplot(grid[0])
    if rows and rows[0]["rating"] is not None:
        ratings = np.array([r["rating"] for r in rows])
        if rows[0]["rating_ci"] is not None:
            lo = ratings - np.array([r["rating_ci"][0] for r in rows])
            hi = np.array([r["rating_ci"][1] for r in rows]) - ratings
            ax.errorbar(ratings, y, xerr=[lo, hi], fmt="o", capsize=4)
        else:
            ax.plot(ratings, y, "o")
        ax.axvline(1500, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, labels)
    ax.set_xlabel("Elo-scale rating, 95% bootstrap interval")
    ax.set_title("Bradley-Terry rating")
    ax = fig.add_subplot(grid[1], sharey=ax)
    rates = np.array([r["win_rate"] for r in rows])
    lo = rates - np.array([r["win_rate_ci"][0] for r in rows])
    hi = np.array([r["win_rate_ci"][1] for r in rows]) - rates
    ax.errorbar(rates, y, xerr=[lo, hi], fmt="o", capsize=4, color="tab:green", label="win rate")
    ax.plot([r["table_share"] for r in rows], y, "|", color="grey", markersize=14, label="fair share")
    ax.tick_params(labelleft=False)
    ax.set_xlabel("win rate, 95% Wilson interval")
    ax.set_title("win rate")
    ax.legend(loc="best", fontsize=8)
    ax = fig.add_subplot(grid[2])
    steps = records["steps"] / np.maximum(records["rounds"], 1)
    if len(steps):
        top = max(float(np.percentile(steps, 99)), 1.0)
        ax.hist(np.clip(steps, 0, top), bins=60, color="tab:purple")
    ax.set_xlabel("decisions per hand (to the 99th percentile)")
    ax.set_title("hand length")
    fig.suptitle(
        f"{summary['games']} games, {summary['players']} players, {summary['schedule']} schedule, "
        f"seed {summary['seed']}",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------- the command
def run_tournament(
    agents: list[str],
    config,
    games: int,
    seed: int = 0,
    schedule: str = "mixed",
    players: int | None = None,
    workers: int | None = None,
    bootstrap: int = 200,
    progress: bool = False,
    orders: str | None = None,
    ray: str | None = None,
) -> tuple[dict, Schedule, list[Entrant], dict]:
    """Run a tournament; returns (summary, schedule, entrants, records). ``config`` is the
    table's RuleConfig; ``players`` the players of a game (8 for two-table rotation).
    ``workers``: processes (default 2), or with ``ray`` (a cluster address, or "local")
    Ray tasks in flight (default: every CPU of the cluster)."""
    entrants = make_entrants(agents, config)
    players = players or config.num_players
    if schedule == "rotate":
        if players not in (4, 8):
            raise ValueError(f"--schedule rotate (R-VAR-ROTATE) needs 4 or 8 players, got {players}")
        if config.num_players != 4 or not config.partners or config.episode != "round":
            raise ValueError("rotating partners play single hands at 4-player partner tables")
    elif players != config.num_players:
        raise ValueError(f"players={players} but the table has {config.num_players} seats")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"--workers must be a positive integer, got {workers!r}")
    plan = build_schedule(schedule, len(entrants), players, games, orders)
    start = time.perf_counter()
    records = run_jobs(config, entrants, plan, seed, workers, progress, ray)
    elapsed = time.perf_counter() - start
    summary = {
        "agents": [e.label for e in entrants],
        "players": players,
        "schedule": schedule,
        "games": plan.num_matches,
        "table_games": len(plan.jobs),
        "seed": seed,
        "settings": config.to_dict(),
    }
    summary.update(analyse(config, entrants, plan, records, seed, bootstrap))
    summary["elapsed_seconds"] = elapsed
    return summary, plan, entrants, records


def build_parser() -> argparse.ArgumentParser:
    from agents.play import add_rule_arguments

    parser = argparse.ArgumentParser(
        prog="uno tournament", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--agents",
        default=DEFAULT_AGENTS,
        help=f"agent specs, comma-separated (name or name:key=value...); default {DEFAULT_AGENTS}",
    )
    add_rule_arguments(parser, None, DEFAULT_PLAYERS)
    parser.add_argument("--games", type=int, default=None, help=f"games of the tournament (default {DEFAULT_GAMES})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the whole tournament (default 0)")
    parser.add_argument("--schedule", choices=("mixed", "rotate"), default="mixed", help="table schedule")
    parser.add_argument(
        "--seating",
        choices=("permutations", "rotations"),
        default=None,
        help="seatings of each table (default: all orders up to 4 players, rotations above)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes for non-compiled agents (default 2); with --ray, tasks in flight (default: all CPUs)",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks: on the cluster at ADDRESS ('auto', 'ray://host:10001'; "
        "default RAY_ADDRESS), else a local Ray; the same results as without (docs/SCALE.md)",
    )
    parser.add_argument("--bootstrap", type=int, default=200, help="bootstrap samples for rating intervals")
    parser.add_argument("--out", type=Path, default=Path("results"), help="output directory (default results/)")
    parser.add_argument("--name", default="tournament", help="file name stem of the outputs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-files", action="store_true", help="print the leaderboard only")
    return parser


def main(argv: list[str] | None = None) -> int:
    from agents.play import rule_config

    args = build_parser().parse_args(argv)
    try:
        specs = [s.strip() for s in args.agents.split(",") if s.strip()]
        players = args.players if args.players is not None else DEFAULT_PLAYERS
        if args.schedule == "rotate":
            if args.episode == "game":
                raise ValueError("--schedule rotate plays single hands (R-VAR-ROTATE); drop --episode game")
            args.players = 4
            args.settings = list(args.settings) + ["partners=true"]
            args.episode = "round"
        else:
            args.players = players
            args.episode = args.episode or "round"
        config = rule_config(args, players)
        games = args.games if args.games is not None else DEFAULT_GAMES
        summary, plan, entrants, records = run_tournament(
            specs,
            config,
            games,
            seed=args.seed,
            schedule=args.schedule,
            players=players,
            workers=args.workers,
            bootstrap=args.bootstrap,
            ray=args.ray,
            progress=not args.no_progress,
            orders=args.seating,
        )
    except ValueError as err:
        print(f"uno tournament: error: {err}", file=sys.stderr)
        return 2
    summary["command"] = "uno tournament " + " ".join(argv if argv is not None else sys.argv[1:])
    print(
        f"{summary['games']} games ({summary['table_games']} table games) of {players} players, "
        f"schedule {args.schedule}, episode {config.episode}, seed {args.seed}, {summary['elapsed_seconds']:.1f}s"
    )
    print(format_leaderboard(summary))
    if not args.no_files:
        paths = write_outputs(args.out, args.name, summary, plan, entrants, records)
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
