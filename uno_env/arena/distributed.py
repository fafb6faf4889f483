"""Tournament jobs as Ray tasks, on this machine or a cluster (``uno tournament --ray``).

The jobs are the same as the local runner's: chunks of all-compiled table games
(one compiled call each) and chunks of games with Python agents (one
:class:`~uno_env.arena.tables.TablePlayer` per chunk). Every game is seeded by its job
number alone, so the results are game by game those of the local run, whatever the
number of nodes, workers or chunks. Each task runs on one CPU (numba threads set to 1),
and at most ``workers`` tasks are in flight (default: every CPU of the cluster).

Every node of a cluster needs this project installed (``pip install "uno-env[scale]"``
or the repository with ``pip install -e ".[scale]"``) with the same Python, numpy and
numba versions; the numba cache is built per node on first use. See docs/SCALE.md.
"""

from __future__ import annotations

import os
import socket

import numba

from uno_env.agents import registered_extras
from uno_env.progress import progress_bar

from .tables import (
    COMPILED_CHUNK,
    RECORD_FIELDS,
    TablePlayer,
    concat_records,
    play_compiled,
    put_records,
    split_jobs,
    warm_up,
)

LOCAL = "local"


def cluster_address(address: str | None) -> str | None:
    """The cluster to connect to: ``address``, else ``RAY_ADDRESS``; None for a local Ray
    (no address given, or "local")."""
    if address == LOCAL:
        return None
    return address or os.environ.get("RAY_ADDRESS") or None


CONNECT_TIMEOUT = 10.0
"""Seconds a cluster address has to answer before ``start_ray`` gives up on it (Ray itself
would retry for minutes)."""


def check_answers(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """A ``host:port`` or ``ray://host:port`` address must accept a connection within
    ``timeout`` seconds (ValueError naming it otherwise); ``auto`` is left to Ray, which
    looks for a cluster on this machine."""
    target = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = target.rpartition(":")
    if not sep:
        if address == "auto":
            return
        raise ValueError(f"Ray address {address!r}: expected host:port, ray://host:port or 'auto'")
    host = host.strip("[]")  # an IPv6 address in brackets
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"Ray address {address!r}: expected host:port with a port 1..65535")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as err:
        reason = "no answer" if isinstance(err, TimeoutError) else (err.strerror or str(err))
        raise ValueError(f"Ray address {address!r} does not answer within {timeout:g} s ({reason})") from None


def start_ray(address: str | None = None, num_cpus: int | None = None) -> dict:
    """Connect to the Ray cluster at ``address`` (or ``RAY_ADDRESS``), or start a local Ray
    with ``num_cpus`` CPUs (default all) when neither is given or ``address`` is "local".
    A local Ray runs without token authentication unless ``RAY_AUTH_MODE`` says otherwise
    (token auth is for clusters shared over a network). An address that does not answer
    within :data:`CONNECT_TIMEOUT` seconds is refused. Returns the cluster's resources."""
    address = cluster_address(address)
    if address:
        check_answers(address)
    try:
        import ray  # optional: the scale extra
    except ImportError:
        raise ValueError(
            "Ray is not installed: pip install 'uno-env[scale]' (or -e '.[scale]' in the repository)"
        ) from None

    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            ray.init(num_cpus=num_cpus or os.cpu_count(), include_dashboard=False, log_to_driver=False)
    return ray.cluster_resources()


def _play_compiled_chunk(config, lineups, policy_ids, jobs, seed, deals=None) -> dict:
    numba.set_num_threads(1)
    return play_compiled(config, lineups, policy_ids, jobs, seed, deals)


def _play_python_chunk(config, entrants, seed, extras, tasks) -> list[dict]:
    numba.set_num_threads(1)
    player = TablePlayer(config, entrants, seed, extras)
    try:
        return [player.play(job, lineup) for job, lineup in tasks]
    finally:
        player.close()


def run_jobs_on_ray(
    config, entrants, schedule, seed: int, address: str, workers: int | None, progress: bool, records: dict
) -> dict:
    """Play every table game of ``schedule`` as Ray tasks; fills and returns ``records``
    (in job order, like :func:`uno_env.arena.tables.run_jobs`)."""
    import ray  # optional: the scale extra (start_ray below says so if it is missing)

    resources = start_ray(address, workers)
    in_flight = workers or max(1, int(resources.get("CPU", 1)))
    compiled_task = ray.remote(num_cpus=1)(_play_compiled_chunk)
    python_task = ray.remote(num_cpus=1)(_play_python_chunk)
    jobs = schedule.jobs
    compiled, python, policy_ids = split_jobs(schedule, entrants)
    chunk = max(1, min(COMPILED_CHUNK, -(-len(compiled) // (4 * in_flight))))
    # (kind, part): job ids for a compiled task, (job id, lineup) pairs for a Python one
    work: list[tuple[str, list]] = [("compiled", compiled[s : s + chunk]) for s in range(0, len(compiled), chunk)]
    if python:
        warm_up(config, entrants, seed, [lineup for _, lineup in python])  # compile once, here
        size = max(1, -(-len(python) // (8 * in_flight)))
        work += [("python", python[s : s + size]) for s in range(0, len(python), size)]
    extras = registered_extras()
    pending: dict = {}

    def submit(kind: str, part: list) -> None:
        if kind == "compiled":
            pending[compiled_task.remote(config, jobs, policy_ids, part, seed)] = [(j, None) for j in part]
        else:
            pending[python_task.remote(config, entrants, seed, extras, part)] = part

    with progress_bar(total=len(jobs), unit="game", disable=not progress, smoothing=0.05) as bar:
        queue = list(work)
        while queue or pending:
            while queue and len(pending) < in_flight:
                submit(*queue.pop(0))
            [ref], _ = ray.wait(list(pending), num_returns=1)
            part = pending.pop(ref)
            result = ray.get(ref)
            rows = [j for j, _ in part]
            put_records(
                records, rows, result if isinstance(result, dict) else concat_records(result, config.num_players)
            )
            bar.update(len(rows))
    return records


class RayTables:
    """The Ray runner of :class:`~uno_env.arena.runners.DealTables`: games given as (deal,
    lineup), the all-compiled ones of a batch as one task, every other game as a task of
    its own, at most ``workers`` in flight (default: every CPU of the cluster)."""

    def __init__(self, config, entrants, seed: int, address: str, workers: int | None):
        import ray  # optional: the scale extra (start_ray says so if it is missing)

        resources = start_ray(address, workers)
        self.in_flight = workers or max(1, int(resources.get("CPU", 1)))
        self.compiled_task = ray.remote(num_cpus=1)(_play_compiled_chunk)
        self.python_task = ray.remote(num_cpus=1)(_play_python_chunk)
        self.config, self.entrants, self.seed = config, entrants, seed
        self.extras = registered_extras()
        self.warm = False

    def play(self, games: list[tuple[int, tuple[int, ...]]], compiled: list[int], others: list[int]):
        """(index in ``games``, records of that game) as the tasks end."""
        import ray  # optional: the scale extra

        if others and not self.warm:
            warm_up(self.config, self.entrants, self.seed, [games[i][1] for i in others])  # compile once, here
            self.warm = True
        policy_ids = [-1 if e.policy_id is None else e.policy_id for e in self.entrants]
        work: list[tuple[str, list[int]]] = [("compiled", compiled)] if compiled else []
        work += [("python", [i]) for i in others]
        pending: dict = {}
        while work or pending:
            while work and len(pending) < self.in_flight:
                kind, part = work.pop(0)
                if kind == "compiled":
                    lineups, deals = [games[i][1] for i in part], [games[i][0] for i in part]
                    args = (self.config, lineups, policy_ids, list(range(len(part))), self.seed, deals)
                    pending[self.compiled_task.remote(*args)] = part
                else:
                    tasks = [games[i] for i in part]
                    pending[self.python_task.remote(self.config, self.entrants, self.seed, self.extras, tasks)] = part
            [ref], _ = ray.wait(list(pending), num_returns=1)
            part = pending.pop(ref)
            result = ray.get(ref)
            rec = result if isinstance(result, dict) else concat_records(result, self.config.num_players)
            for b, i in enumerate(part):
                yield i, {key: rec[key][b : b + 1] for key in RECORD_FIELDS}
