"""A standing ladder (``uno ladder``): entrants added one version at a time, games played where
they most narrow the ratings' intervals, every game kept in one SQLite file
(:mod:`.ladder_store`), ratings fitted on all of them (:mod:`.ladder_report`).

* **Identity.** An entrant is a name, an agent spec and what is known of the code behind it:
  the SHA-256 of a ``weights=`` file, of the shipped network ``ppo`` plays at the ladder's
  table, or of the files a ``cmd:`` program's command names. ``add`` under a name whose
  file changed registers a new version (``bot v2``) and retires the old one (its games
  stay); ``play`` refuses to play an entrant whose file changed since it was added.
* **Which tables.** Each batch of tables is chosen greedily on the Luce model of the
  ratings: the table whose games most reduce the summed variance of the ratings (the
  trace of the inverse Fisher information, to first order), an entrant without games
  first. With fewer entrants than seats a table repeats entrants in turn (``A B C A``).
* **Which deals.** A table is played on one deal (deal numbers from the file's counter,
  seeded by the ladder's seed) in every rotation of a seating order drawn for that deal, so
  every entrant of the table is dealt every seat's cards.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
import shlex
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from uno_env.agents import parse_agent_spec
from uno_env.agents.neural.shipped import shipped_path
from uno_env.engine import Game
from uno_env.engine.seeding import hash_seed

from .analysis import match_results
from .ladder_store import EntrantRow, LadderStore
from .ratings import fit_luce, group_matches
from .runners import DealTables
from .schedule import Entrant, Schedule, make_entrants

MAX_CANDIDATES = 2000
"""Tables compared per choice; beyond, only tables with the least known entrant and the
entrants rated nearest it."""
COMPILED_BATCH = 256
"""Games per batch when every entrant is a compiled policy (one compiled call)."""
NAME = re.compile(r"\S(.*\S)?")
VERSIONED = re.compile(r".* v\d+$")


# ---------------------------------------------------------------------------- identity
def program_files(command: str) -> list[Path]:
    """The files a ``cmd:`` command names: its program when given as a path, and every
    argument that is a file (``python bot.py`` -> ``bot.py``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    files = [Path(w) for w in words[1:] if Path(w).is_file()]
    if words and ("/" in words[0] and Path(words[0]).is_file()):
        files.insert(0, Path(words[0]))
    elif words and not files and shutil.which(words[0]):
        files.append(Path(str(shutil.which(words[0]))))  # a program on PATH, and nothing else to go by
    return files


def identity(spec: str, config) -> tuple[str | None, str]:
    """(SHA-256 of the files behind ``spec``, or None; what was hashed, in words)."""
    name, options = parse_agent_spec(spec)
    if name == "cmd":
        files = program_files(options["command"])
    elif options.get("weights"):
        files = [Path(options["weights"])]
    elif name in ("ppo", "ppo_search"):
        files = [shipped_path(Game(config))]
    else:
        return None, "a built-in agent: no file to hash (it changes with the installed uno-env)"
    if not files:
        return None, "no file found in the command to hash"
    digest = hashlib.sha256()
    for path in files:
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest(), "sha256 of " + ", ".join(str(p) for p in files)


def add_entrant(store: LadderStore, spec: str, name: str | None = None) -> tuple[EntrantRow, str]:
    """Add ``spec`` as ``name`` (default: the spec); returns the entrant and what was done,
    in words. The same name with a changed file is a new version; with another spec, refused."""
    spec = spec.strip()
    config = store.rules()
    entrant = make_entrants([spec], config)[0]  # checks the spec and its options now
    name = spec if name is None else name
    if not NAME.fullmatch(name) or "\n" in name or len(name) > 200 or VERSIONED.fullmatch(name):
        raise ValueError(f"--name {name!r}: expected a name of 1 to 200 characters, not ending in ' v<number>'")
    digest, what = identity(spec, config)
    versions = [e for e in store.entrants() if e.name == name]
    latest = versions[-1] if versions else None
    if latest is not None and latest.spec != spec:
        raise ValueError(f"{name!r} is {latest.spec!r} on this ladder; give {spec!r} another --name")
    if latest is not None and latest.identity == digest:
        return latest, f"{latest.label!r} is already on the ladder, unchanged ({what})"
    row = store.add_entrant(name, spec, digest, what, entrant.policy_id is not None)
    if latest is None:
        return row, f"added {row.label!r}: {spec} ({what})"
    return row, (
        f"{name!r} changed since {latest.label!r} was added ({what}: {short(latest.identity)} -> {short(digest)}): "
        f"registered as a new entrant {row.label!r}; {latest.label!r} keeps its games and plays no more"
    )


def short(digest: str | None) -> str:
    return "none" if digest is None else digest[:12]


def changed_entrants(store: LadderStore, entrants: list[EntrantRow]) -> list[str]:
    """The entrants whose files are not what they were when added, in words."""
    config = store.rules()
    changed = []
    for e in entrants:
        digest, what = identity(e.spec, config)
        if digest != e.identity:
            changed.append(f"{e.label!r} ({what}: {short(e.identity)} when added, {short(digest)} now)")
    return changed


# ---------------------------------------------------------------------------- the choice
@dataclass
class Tally:
    """What the choice needs of the games so far: per decided game, the multiplicity and the
    win credit of each entrant, by its column (its place among every entrant of the file,
    in the order added)."""

    multiplicity: np.ndarray
    credit: np.ndarray
    last_id: int = 0

    @classmethod
    def empty(cls) -> Tally:
        return cls(np.zeros((0, 0)), np.zeros((0, 0)))

    def update(self, store: LadderStore, config) -> int:
        """Add the games of the file not yet seen (any process's); returns the columns."""
        columns = {row.id: c for c, row in enumerate(store.entrants())}
        size = len(columns)
        ids, seatings, rec = store.games(self.last_id)
        self.multiplicity, self.credit = pad(self.multiplicity, size), pad(self.credit, size)
        if ids:
            n = config.num_players
            teams = [s % config.num_teams for s in range(n)] if config.partners else list(range(n))
            lineups = [tuple(columns[e] for e in seating) for seating in seatings]
            matches = [[(j, s, s) for s in range(n)] for j in range(len(lineups))]
            schedule = Schedule("mixed", n, n, lineups, matches, lineups, 1)
            multiplicity, credit, _, decided, _ = match_results(schedule, rec, size, teams)
            self.multiplicity = np.vstack([self.multiplicity, multiplicity[decided]])
            self.credit = np.vstack([self.credit, credit[decided]])
            self.last_id = ids[-1]
        return size


def pad(a: np.ndarray, size: int) -> np.ndarray:
    return np.hstack([a, np.zeros((a.shape[0], size - a.shape[1]))]) if a.shape[1] < size else a


def fisher_information(multiplicity: np.ndarray, weight: np.ndarray, gamma: np.ndarray, prior: float = 1.0):
    """The Fisher information of the log-strengths of a Luce model (with ``prior``: the
    virtual game per pair that :func:`~.ratings.fit_luce` adds) for games of ``weight`` per
    row of ``multiplicity``."""
    k = len(gamma)
    rows = [multiplicity]
    weights = [weight]
    if prior > 0:
        pairs = np.zeros((k * (k - 1) // 2, k))
        for r, (i, j) in enumerate(itertools.combinations(range(k), 2)):
            pairs[r, [i, j]] = 1.0
        rows.append(pairs)
        weights.append(np.full(len(pairs), prior))
    m, w = np.vstack(rows), np.concatenate(weights)
    pi = m * gamma
    pi /= np.maximum(pi.sum(axis=1, keepdims=True), 1e-300)
    return np.diag(w @ pi) - (pi * w[:, None]).T @ pi


def candidate_tables(active: list[int], players: int, order: np.ndarray) -> list[tuple[int, ...]]:
    """Tables of active entrants (indices): every combination of ``players`` of them; with
    fewer entrants than seats, each in turn starting the repeated list (``A B C A``). Past
    :data:`MAX_CANDIDATES`, the combinations with ``order[0]`` (the least known entrant)
    and the others rated nearest it."""
    k = len(active)
    if k < players:
        return list(dict.fromkeys(tuple(sorted(active[(j + s) % k] for s in range(players))) for j in range(k)))
    if math.comb(k, players) <= MAX_CANDIDATES:
        return list(itertools.combinations(sorted(active), players))
    focus = int(order[0])
    near = [int(e) for e in order[1:]]
    while math.comb(len(near), players - 1) > MAX_CANDIDATES:
        near.pop()
    return [tuple(sorted((focus, *rest))) for rest in itertools.combinations(sorted(near), players - 1)]


def choose_tables(tally: Tally, active: list[int], players: int, count: int) -> list[tuple[int, ...]]:
    """``count`` tables, one after the other: each the one whose ``players`` games (one per
    rotation) most reduce the summed variance of the ratings, given the games so far and
    the tables already chosen; an active entrant without games sits at the next table."""
    size = tally.multiplicity.shape[1]
    multiplicity, credit = tally.multiplicity, tally.credit
    grouped = group_matches(multiplicity, credit)
    gamma = fit_luce(grouped.multiplicity, grouped.credit * grouped.count[:, None], grouped.count)
    info = fisher_information(grouped.multiplicity, grouped.count.astype(np.float64), gamma)
    games = (multiplicity > 0).sum(axis=0)
    chosen = []
    for _ in range(count):
        cov = np.linalg.pinv(info)
        spread = np.diag(cov)
        rating = np.log(gamma)
        least = max(active, key=lambda e: (spread[e], -e))
        order = np.array(sorted(active, key=lambda e: (e != least, abs(rating[e] - rating[least]), e)))
        tables = candidate_tables(active, players, order)
        new = [e for e in active if games[e] == 0]
        if new:
            tables = [t for t in tables if new[0] in t]
        table = tables[int(np.argmax(gains(tables, gamma, cov, players)))]
        m = np.bincount(table, minlength=size).astype(np.float64)[None, :]
        info = info + fisher_information(m, np.array([float(players)]), gamma, prior=0.0)
        games[list(table)] += players
        chosen.append(table)
    return chosen


def gains(tables: list[tuple[int, ...]], gamma: np.ndarray, cov: np.ndarray, players: int) -> np.ndarray:
    """The first-order fall in the summed variance of the ratings, trace(C dI C), from the
    ``players`` games of each table."""
    m = np.zeros((len(tables), len(gamma)))
    for r, table in enumerate(tables):
        np.add.at(m[r], list(table), 1.0)
    pi = m * gamma
    pi /= pi.sum(axis=1, keepdims=True)
    c2 = cov @ cov
    return players * (pi @ np.diag(c2) - np.einsum("ti,ij,tj->t", pi, c2, pi))


def block_seatings(table: tuple[int, ...], deal: int, seed: int) -> list[tuple[int, ...]]:
    """The seatings of a table on one deal: a seating order drawn for the deal, in each of its
    rotations (once each: a table that repeats entrants may have fewer)."""
    rng = np.random.default_rng(hash_seed(seed, deal, 3))
    order = tuple(table[i] for i in rng.permutation(len(table)))
    rotations = [order[r:] + order[:r] for r in range(len(order))]
    return list(dict.fromkeys(rotations))


# ---------------------------------------------------------------------------- play
def playing_entrants(store: LadderStore) -> tuple[list[EntrantRow], list[Entrant]]:
    """The entrants that play (not retired), checked: at least two, each file unchanged."""
    config = store.rules()
    rows = [e for e in store.entrants() if not e.retired]
    if len(rows) < 2:
        raise ValueError(f"{str(store.path)!r} has {len(rows)} entrant(s) that play: add at least two (uno ladder add)")
    changed = changed_entrants(store, rows)
    if changed:
        raise ValueError(
            "changed since added, so their games would mix two versions: "
            + "; ".join(changed)
            + ". Add each again (uno ladder add FILE SPEC --name NAME) to register the new version"
        )
    return rows, [make_entrants([row.spec], config)[0] for row in rows]


def play_ladder(
    path,
    games: int | None = None,
    minutes: float | None = None,
    workers: int | None = None,
    ray: str | None = None,
    command: str = "uno ladder play",
    on_game=None,
) -> dict:
    """Play ``games`` games (or for ``minutes``: no batch starts after them) on the ladder at
    ``path``, each committed as it ends; returns this play's id, the games it added and the
    ladder's total. ``on_game`` is called after each committed game."""
    if (games is None) == (minutes is None):
        raise ValueError("give --games N or --minutes M")
    store = LadderStore.open(path)
    try:
        config = store.rules()
        seed = store.seed()
        rows, entrants = playing_entrants(store)
        columns = {row.id: c for c, row in enumerate(store.entrants())}
        active = [columns[row.id] for row in rows]  # the playing entrants' columns
        playing = {c: i for i, c in enumerate(active)}  # column -> entrant of DealTables
        ids = {c: row_id for row_id, c in columns.items()}
        play = store.begin_play(command)
        deadline = None if minutes is None else time.monotonic() + 60.0 * minutes
        compiled = all(e.policy_id is not None for e in entrants)
        tally = Tally.empty()
        added = 0
        start = time.perf_counter()
        with DealTables(config, entrants, seed, workers, ray) as tables:
            per_batch = max(1, COMPILED_BATCH // config.num_players) if compiled else tables.parallel
            while (games is None or added < games) and (deadline is None or time.monotonic() < deadline):
                tally.update(store, config)
                blocks = choose_tables(tally, active, config.num_players, per_batch)
                deals = store.take_deals(len(blocks))
                jobs = [(d, seating) for table, d in zip(blocks, deals) for seating in block_seatings(table, d, seed)]
                if games is not None:
                    jobs = jobs[: games - added]
                for i, rec in tables.play([(d, tuple(playing[c] for c in seating)) for d, seating in jobs]):
                    store.add_game(play, jobs[i][0], tuple(ids[c] for c in jobs[i][1]), rec)
                    added += 1
                    if on_game is not None:
                        on_game(added)
        return {
            "play": play,
            "games": added,
            "total": store.count_games(),
            "seconds": time.perf_counter() - start,
        }
    finally:
        store.close()
