"""Compiled batch kernels on several threads: :func:`run_in_parts` hands contiguous parts of a
batch to a pool of worker threads kept between calls (:func:`~.play.play_batch`, the vector
env's step, ``play`` and sampler)."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait


class _WorkerPool:
    """The threads :func:`run_in_parts` hands parts to, kept between calls: starting threads
    at every call would cost more than a vector env step. Grown when a call asks for more,
    and rebuilt in a forked child (whose copy of the pool has no threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._size = 0
        self._pid = 0

    def get(self, workers: int) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None or self._size < workers or self._pid != os.getpid():
                if self._pool is not None and self._pid == os.getpid():
                    self._pool.shutdown(wait=False)  # its running parts still finish
                self._pool = ThreadPoolExecutor(workers, thread_name_prefix="uno_env")
                self._size, self._pid = workers, os.getpid()
            return self._pool


_WORKERS = _WorkerPool()


def run_in_parts(size: int, threads: int, run_part) -> list:
    """``run_part(part)`` for ``threads`` contiguous slices that cover ``range(size)``, the
    first on the calling thread and each other on a worker thread; returns their results
    in order, after every part has finished. For compiled kernels that release the GIL and
    give the same result over any split of their batch.

    Python threads, not a ``prange`` loop: numba compiles a ``prange`` body as a function
    of its own and links and optimizes the engine and every policy into both, which cost
    16 s more at the first tournament (and 31-35 s more at a parallel vector env's first
    step). A vector env step over two parts ran 1.07-1.08x the speed of its ``prange`` loop
    from 4096 games on, 0.91-0.94x at 1024 (docs/VECTOR.md, fourth round)."""
    threads = max(1, min(int(threads), size))
    bounds = [size * k // threads for k in range(threads + 1)]
    parts = [slice(bounds[k], bounds[k + 1]) for k in range(threads)]
    if threads == 1:
        return [run_part(parts[0])]
    pool = _WORKERS.get(threads - 1)
    others = [pool.submit(run_part, part) for part in parts[1:]]
    try:
        first = run_part(parts[0])
    finally:
        wait(others)  # no part may still write into the batch when this returns or raises
    return [first] + [future.result() for future in others]  # result(): a part's error is raised here
