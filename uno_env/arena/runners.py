"""Running the table games of a schedule: the all-compiled tables in compiled calls of
:data:`~uno_env.arena.tables.COMPILED_CHUNK` games, the tables with Python agents in this
process or in ``workers`` processes, or everything as Ray tasks (:mod:`.distributed`).
Every runner gives the same records, in job order."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import warnings

from uno_env.agents import registered_extras
from uno_env.agents.ppo import TrainingMismatchWarning
from uno_env.progress import progress_bar

from .distributed import run_jobs_on_ray
from .schedule import Schedule
from .tables import COMPILED_CHUNK, TablePlayer, empty_records, play_compiled, put_records, split_jobs, warm_up


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
    """The records of the ``tasks`` (job, lineup) as ``workers`` processes play them: worker
    k plays tasks k, k + workers, k + 2 workers, ... in that order, so that each agent (an
    outside program that keeps state between games included) sees the same games in the
    same order in every run of the same seed and workers. The Python agents act once here
    first, so that what they compile is cached before the workers start."""
    warm_up(config, entrants, seed, [lineup for _, lineup in tasks])
    ctx = multiprocessing.get_context("spawn")
    workers = max(1, min(workers, len(tasks)))
    initargs = (config, entrants, seed, registered_extras(), strict)
    pools = [ctx.Pool(1, initializer=_worker_init, initargs=initargs) for _ in range(workers)]
    try:
        shares = [tasks[k::workers] for k in range(workers)]
        streams = [zip(share, pool.imap(_worker_play, share, chunksize=1)) for share, pool in zip(shares, pools)]
        for round_ in itertools.zip_longest(*streams):
            for done in round_:
                if done is not None:
                    (j, _), rec = done
                    yield j, rec
        for pool in pools:
            pool.close()  # the workers exit as they do at the end of their work: their programs are ended and reaped
        for pool in pools:
            pool.join()
    finally:
        for pool in pools:
            pool.terminate()  # after close(), once they have exited: nothing left to end
        for pool in pools:
            pool.join()


_WORKER: TablePlayer | None = None


def _worker_init(config, entrants, seed, extras, strict) -> None:
    global _WORKER
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    warnings.simplefilter("ignore", TrainingMismatchWarning)  # the parent process warned
    _WORKER = TablePlayer(config, entrants, seed, extras, strict)


def _worker_play(task: tuple[int, tuple[int, ...]]) -> dict:
    assert _WORKER is not None
    return _WORKER.play(*task)
