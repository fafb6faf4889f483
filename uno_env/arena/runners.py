"""Running the table games of a schedule: the all-compiled tables in compiled calls of
:data:`~uno_env.arena.tables.COMPILED_CHUNK` games, the tables with Python agents in this
process or in ``workers`` processes, or everything as Ray tasks (:mod:`.distributed`).
Every runner gives the same records, in job order. :class:`DealTables` plays games given one
batch at a time, as (deal, lineup), for the runs that choose what to play next from what was
played (``uno match``, ``uno ladder``)."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import warnings

from uno_env.agents import registered_extras
from uno_env.agents.ppo import TrainingMismatchWarning
from uno_env.progress import progress_bar

from .distributed import RayTables, run_jobs_on_ray
from .schedule import Schedule
from .tables import (
    COMPILED_CHUNK,
    RECORD_FIELDS,
    TablePlayer,
    empty_records,
    play_compiled,
    put_records,
    split_jobs,
    warm_up,
)


def run_jobs(
    config,
    entrants,
    schedule: Schedule,
    seed: int,
    workers: int | None,
    progress: bool,
    ray: str | None = None,
    strict: bool = False,
) -> dict:
    """Play every table game of the schedule; records in job order. ``ray``: play them as
    Ray tasks on the cluster at that address ("local": a local Ray), same results.
    ``strict``: the first failure of an agent stops the run (:class:`~.tables.TournamentStopped`)."""
    n = config.num_players
    total = len(schedule.jobs)
    if ray is not None:
        return run_jobs_on_ray(config, entrants, schedule, seed, ray, workers, progress, empty_records(total, n))
    workers = workers or 2
    compiled, tasks, policy_ids = split_jobs(schedule, entrants)
    records = empty_records(total, n)
    with progress_bar(total=total, unit="game", disable=not progress, smoothing=0.05) as bar:
        for start in range(0, len(compiled), COMPILED_CHUNK):
            chunk = compiled[start : start + COMPILED_CHUNK]
            put_records(records, chunk, play_compiled(config, schedule.jobs, policy_ids, chunk, seed))
            bar.update(len(chunk))
        if tasks and workers <= 1:
            player = TablePlayer(config, entrants, seed, strict=strict)
            try:
                for j, lineup in tasks:
                    put_records(records, [j], player.play(j, lineup))
                    bar.update(1)
            finally:
                player.close()
        elif tasks:
            for j, rec in play_in_processes(config, entrants, seed, tasks, workers, strict):
                put_records(records, [j], rec)
                bar.update(1)
    return records


def play_in_processes(config, entrants, seed: int, tasks: list[tuple[int, tuple]], workers: int, strict: bool = False):
    """The records of the ``tasks`` (job, lineup) as ``workers`` processes play them
    (:class:`WorkerTables`), in task order. The Python agents act once here first, so
    that what they compile is cached before the workers start."""
    warm_up(config, entrants, seed, [lineup for _, lineup in tasks])
    with WorkerTables(config, entrants, seed, min(workers, len(tasks)), strict) as tables:
        for (j, _), rec in tables.play(tasks):
            yield j, rec


class WorkerTables:
    """``workers`` processes, each with its :class:`~.tables.TablePlayer`, kept between
    calls of :meth:`play`: worker k plays tasks k, k + workers, k + 2 workers, ... of each
    call in that order, so that each agent (an outside program that keeps state between
    games included) sees the same games in the same order in every run of the same seed
    and workers. Leaving the ``with`` block ends the workers as they end at the end of
    their work: their programs are ended and reaped."""

    def __init__(self, config, entrants, seed: int, workers: int, strict: bool = False):
        ctx = multiprocessing.get_context("spawn")
        self.workers = max(1, workers)
        initargs = (config, entrants, seed, registered_extras(), strict)
        self.pools = [ctx.Pool(1, initializer=_worker_init, initargs=initargs) for _ in range(self.workers)]

    def play(self, tasks: list[tuple[int, tuple]]):
        """(task, records) of each (job, lineup) task, in task order."""
        shares = [tasks[k :: self.workers] for k in range(self.workers)]
        streams = [zip(share, pool.imap(_worker_play, share, chunksize=1)) for share, pool in zip(shares, self.pools)]
        for round_ in itertools.zip_longest(*streams):
            for done in round_:
                if done is not None:
                    yield done

    def __enter__(self) -> WorkerTables:
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:  # the workers exit as they do at the end of their work: their programs are ended and reaped
            for pool in self.pools:
                pool.close()
            for pool in self.pools:
                pool.join()
        for pool in self.pools:
            pool.terminate()  # after close(), once they have exited: nothing left to end
        for pool in self.pools:
            pool.join()


class DealTables:
    """Plays table games given as (deal, lineup), batch after batch, for the runs that decide
    what to play next from what was played (``uno match``, ``uno ladder``). Every game of a
    deal has the seeds of that deal whatever its seating (:func:`~.tables.job_seeds` of the
    deal): the all-compiled ones in one compiled call per batch, the others in this process,
    in ``workers`` processes (:class:`WorkerTables`) or as Ray tasks (``ray``: an address or
    "local", :mod:`.distributed`). Use it in a ``with`` block: leaving it ends the workers
    and their programs."""

    def __init__(self, config, entrants, seed: int, workers: int | None = None, ray: str | None = None):
        self.config, self.entrants, self.seed = config, entrants, seed
        self.workers, self.ray = workers or 1, ray
        self.player: TablePlayer | None = None
        self.tables: WorkerTables | None = None
        self.remote = None if ray is None else RayTables(config, entrants, seed, ray, workers)

    @property
    def parallel(self) -> int:
        """Games played at once: the workers, or the Ray tasks in flight."""
        return self.workers if self.remote is None else self.remote.in_flight

    def play(self, games: list[tuple[int, tuple[int, ...]]]):
        """(index in ``games``, records of that one game) as each game ends: the compiled ones
        first, in order; the others in order, or with Ray as they end."""
        compiled = [i for i, (_, lineup) in enumerate(games) if all(self.policy_id(e) is not None for e in lineup)]
        others = [i for i in range(len(games)) if i not in set(compiled)]
        if self.ray is not None:
            yield from self.ray_games(games, compiled, others)
            return
        if compiled:
            policy_ids = [-1 if e.policy_id is None else e.policy_id for e in self.entrants]
            lineups = [games[i][1] for i in compiled]
            deals = [games[i][0] for i in compiled]
            rec = play_compiled(self.config, lineups, policy_ids, list(range(len(compiled))), self.seed, deals)
            for b, i in enumerate(compiled):
                yield i, {key: rec[key][b : b + 1] for key in RECORD_FIELDS}
        tasks = [games[i] for i in others]
        if tasks and self.workers <= 1:
            if self.player is None:
                self.player = TablePlayer(self.config, self.entrants, self.seed)
            for i, (deal, lineup) in zip(others, tasks):
                yield i, self.player.play(deal, lineup)
        elif tasks:
            if self.tables is None:
                warm_up(self.config, self.entrants, self.seed, [lineup for _, lineup in tasks])
                self.tables = WorkerTables(self.config, self.entrants, self.seed, self.workers)
            for i, (_, rec) in zip(others, self.tables.play(tasks)):
                yield i, rec

    def ray_games(self, games, compiled: list[int], others: list[int]):
        assert self.remote is not None
        yield from self.remote.play(games, compiled, others)

    def policy_id(self, entrant: int) -> int | None:
        return self.entrants[entrant].policy_id

    def __enter__(self) -> DealTables:
        return self

    def __exit__(self, *exc) -> None:
        if self.player is not None:
            self.player.close()
        if self.tables is not None:
            self.tables.__exit__(*exc)


_WORKER: TablePlayer | None = None


def _worker_init(config, entrants, seed, extras, strict) -> None:
    global _WORKER
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    warnings.simplefilter("ignore", TrainingMismatchWarning)  # the parent process warned
    _WORKER = TablePlayer(config, entrants, seed, extras, strict)


def _worker_play(task: tuple[int, tuple[int, ...]]) -> dict:
    assert _WORKER is not None
    return _WORKER.play(*task)
