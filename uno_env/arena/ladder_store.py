"""The file of a standing ladder (``uno ladder``): one SQLite database (the standard
library's :mod:`sqlite3`) in WAL mode, its schema version checked when it is opened.

Tables: ``meta`` (the schema version, the rules fixed when the ladder was made, its seed,
the next deal number), ``entrants`` (each version of each name: its agent spec, what is
known of its identity, whether it still plays), ``plays`` (one row per ``uno ladder play``
process) and ``games`` (one row per finished game: its deal, its seating, its results).

Nothing is lost and nothing is counted twice:

* each finished game is one transaction of its own (``synchronous=NORMAL`` in WAL mode: a
  committed game survives the process being killed, SIGKILL included);
* deal numbers are handed out by a counter incremented in a write transaction
  (``BEGIN IMMEDIATE``), so two processes never get the same deal, and ``UNIQUE(deal,
  seating)`` refuses a deal played twice at the same seating whatever happens;
* a process killed between taking deals and finishing their games leaves those deal
  numbers unused: nothing half-written, nothing to clean up.
"""

from __future__ import annotations

import datetime
import json
import os
import socket
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from uno_env.engine import RuleConfig

from .tables import RECORD_FIELDS, empty_records

SCHEMA_VERSION = 1
"""The schema this code reads and writes; a file of another version is refused when opened."""
BUSY_SECONDS = 60.0
"""How long a write waits for another process's write transaction to end."""

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entrants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version INTEGER NOT NULL,
    spec TEXT NOT NULL,
    identity TEXT,
    identity_of TEXT NOT NULL,
    compiled INTEGER NOT NULL,
    added TEXT NOT NULL,
    retired INTEGER NOT NULL DEFAULT 0,
    UNIQUE (name, version)
);
CREATE TABLE plays (
    id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    command TEXT NOT NULL
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    deal INTEGER NOT NULL,
    seating TEXT NOT NULL,
    play INTEGER NOT NULL REFERENCES plays (id),
    played TEXT NOT NULL,
    outcome TEXT NOT NULL,
    scores TEXT NOT NULL,
    last_winner INTEGER NOT NULL,
    steps INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    truncated INTEGER NOT NULL,
    seconds REAL NOT NULL,
    agent_seconds TEXT NOT NULL,
    forfeit INTEGER NOT NULL,
    failures TEXT NOT NULL,
    notes TEXT,
    UNIQUE (deal, seating)
);
"""


@dataclass
class EntrantRow:
    id: int
    name: str
    version: int
    spec: str
    identity: str | None
    identity_of: str
    compiled: bool
    added: str
    retired: bool

    @property
    def label(self) -> str:
        """The name the ladder shows: the name, and its version from the second on (``bot v2``)."""
        return self.name if self.version == 1 else f"{self.name} v{self.version}"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


class LadderStore:
    """An open ladder file. :meth:`create` makes one, :meth:`open` opens one (checking that it
    is a ladder of this schema version)."""

    def __init__(self, path: Path, conn: sqlite3.Connection):
        self.path = path
        self.conn = conn

    @staticmethod
    def connect(path: Path) -> sqlite3.Connection:
        conn = sqlite3.connect(str(path), timeout=BUSY_SECONDS, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_SECONDS * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = NORMAL")  # in WAL mode: a commit survives the process's death
        return conn

    @classmethod
    def create(cls, path, config: RuleConfig, seed: int) -> LadderStore:
        """A new ladder at ``path`` (refused if anything is there) with the rules ``config``."""
        path = Path(path)
        if path.exists():
            raise ValueError(f"{str(path)!r} exists: a new ladder needs a new file")
        conn = cls.connect(path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        meta = {
            "schema_version": str(SCHEMA_VERSION),
            "rules": json.dumps(config.to_dict(), sort_keys=True),
            "seed": str(seed),
            "next_deal": "0",
            "created": now(),
        }
        conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", meta.items())
        conn.execute("COMMIT")
        return cls(path, conn)

    @classmethod
    def open(cls, path) -> LadderStore:
        """The ladder at ``path``; ValueError when there is none, or it is not a ladder, or
        one of another schema version."""
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no ladder at {str(path)!r}: make one with uno ladder new {path} --players N")
        conn = sqlite3.connect(str(path), timeout=BUSY_SECONDS, isolation_level=None)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except sqlite3.DatabaseError as err:
            conn.close()
            raise ValueError(f"{str(path)!r} is not an uno ladder ({err})") from None
        conn.close()
        conn = cls.connect(path)
        if row is None or row[0] != str(SCHEMA_VERSION):
            conn.close()
            found = "none" if row is None else row[0]
            raise ValueError(f"{str(path)!r}: ladder schema version {found}; this uno reads version {SCHEMA_VERSION}")
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        return cls(path, conn)

    def close(self) -> None:
        self.conn.close()

    # ------------------------------------------------------------------ meta
    def meta(self, key: str) -> str:
        return self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]

    def rules(self) -> RuleConfig:
        return RuleConfig.from_kwargs(**json.loads(self.meta("rules")))

    def seed(self) -> int:
        return int(self.meta("seed"))

    def take_deals(self, count: int) -> range:
        """``count`` deal numbers no other process gets (one write transaction)."""
        with self.transaction():
            first = int(self.meta("next_deal"))
            self.conn.execute("UPDATE meta SET value = ? WHERE key = 'next_deal'", (str(first + count),))
        return range(first, first + count)

    def transaction(self):
        return Transaction(self.conn)

    # ------------------------------------------------------------------ entrants
    def entrants(self) -> list[EntrantRow]:
        rows = self.conn.execute(
            "SELECT id, name, version, spec, identity, identity_of, compiled, added, retired FROM entrants ORDER BY id"
        ).fetchall()
        return [
            EntrantRow(
                id=row[0],
                name=row[1],
                version=row[2],
                spec=row[3],
                identity=row[4],
                identity_of=row[5],
                compiled=bool(row[6]),
                added=row[7],
                retired=bool(row[8]),
            )
            for row in rows
        ]

    def add_entrant(self, name: str, spec: str, identity: str | None, identity_of: str, compiled: bool) -> EntrantRow:
        """A new entrant ``name`` (its next version; the earlier ones are retired)."""
        with self.transaction():
            row = self.conn.execute("SELECT MAX(version) FROM entrants WHERE name = ?", (name,)).fetchone()
            version = (row[0] or 0) + 1
            self.conn.execute("UPDATE entrants SET retired = 1 WHERE name = ?", (name,))
            self.conn.execute(
                "INSERT INTO entrants (name, version, spec, identity, identity_of, compiled, added) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, version, spec, identity, identity_of, int(compiled), now()),
            )
        return next(e for e in self.entrants() if e.name == name and e.version == version)

    # ------------------------------------------------------------------ games
    def begin_play(self, command: str) -> int:
        """A row for this ``play`` process; its games refer to it."""
        with self.transaction():
            cur = self.conn.execute(
                "INSERT INTO plays (started, host, pid, command) VALUES (?, ?, ?, ?)",
                (now(), socket.gethostname(), os.getpid(), command),
            )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def add_game(self, play: int, deal: int, seating: tuple[int, ...], rec: dict) -> None:
        """One finished game (``rec``: the records of one game), in a transaction of its own."""
        notes = rec["notes"][0]
        values = (
            deal,
            ",".join(map(str, seating)),
            play,
            now(),
            json.dumps(rec["outcome"][0].tolist()),
            json.dumps(rec["scores"][0].tolist()),
            int(rec["last_winner"][0]),
            int(rec["steps"][0]),
            int(rec["rounds"][0]),
            int(rec["truncated"][0]),
            float(rec["seconds"][0]),
            json.dumps(rec["agent_seconds"][0].tolist()),
            int(rec["forfeit"][0]),
            json.dumps(rec["failures"][0].tolist()),
            json.dumps(notes) if notes else None,
        )
        with self.transaction():
            self.conn.execute(
                "INSERT INTO games (deal, seating, play, played, outcome, scores, last_winner, steps, rounds, "
                "truncated, seconds, agent_seconds, forfeit, failures, notes) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )

    def count_games(self, play: int | None = None) -> int:
        if play is None:
            return self.conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        return self.conn.execute("SELECT COUNT(*) FROM games WHERE play = ?", (play,)).fetchone()[0]

    def games(self, after: int = 0) -> tuple[list[int], list[tuple[int, ...]], dict]:
        """The games with an id above ``after``: their ids, seatings (entrant ids by seat) and
        records (as a tournament's, :data:`~.tables.RECORD_FIELDS`), in id order."""
        rows = self.conn.execute(
            "SELECT id, seating, outcome, scores, last_winner, steps, rounds, truncated, seconds, agent_seconds, "
            "forfeit, failures, notes FROM games WHERE id > ? ORDER BY id",
            (after,),
        ).fetchall()
        n = self.rules().num_players
        rec = empty_records(len(rows), n)
        for r, row in enumerate(rows):
            rec["outcome"][r] = json.loads(row[2])
            rec["scores"][r] = json.loads(row[3])
            rec["last_winner"][r], rec["steps"][r], rec["rounds"][r] = row[4], row[5], row[6]
            rec["truncated"][r], rec["seconds"][r] = bool(row[7]), row[8]
            rec["agent_seconds"][r] = json.loads(row[9])
            rec["forfeit"][r] = row[10]
            rec["failures"][r] = json.loads(row[11])
            rec["notes"][r] = json.loads(row[12]) if row[12] else None
        seatings = [tuple(int(x) for x in row[1].split(",")) for row in rows]
        assert set(rec) == set(RECORD_FIELDS)
        return [row[0] for row in rows], seatings, rec

    def integrity(self) -> str:
        """``PRAGMA integrity_check``: "ok" for a sound file."""
        return self.conn.execute("PRAGMA integrity_check").fetchone()[0]


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception): one write at a time,
    waiting up to :data:`BUSY_SECONDS` for another process's."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, *rest) -> None:
        self.conn.execute("COMMIT" if kind is None else "ROLLBACK")
