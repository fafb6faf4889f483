"""Ending everything an outside program started, even what left its process group.

A program runs in its own process group (``start_new_session``), so killing the group ends
the program and the children it did not move. A child can leave the group (``setsid``,
a daemon's double fork); on Linux this module still finds and ends it:

* :func:`become_subreaper` makes this process a child subreaper (``prctl
  PR_SET_CHILD_SUBREAPER``): a descendant whose parent dies is re-parented here, not to
  init, so that it can be reaped here once killed;
* every program is started with :data:`TOKEN_VARIABLE` set to a token of its own in its
  environment, which its children inherit; :func:`descendants` finds the processes that
  carry it (``/proc/PID/environ``) and those below the program by parent links
  (``/proc/PID/stat``), so that a child that cleared its environment is found too while
  its parent lives.

Elsewhere (macOS, other Unixes) only the process group is ended: a child that left it
survives the program (docs/PROTOCOL.md, "When a program fails").
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from pathlib import Path

TOKEN_VARIABLE = "UNO_ENV_PROGRAM"
"""The environment variable that marks the processes of one program (its value, a token)."""
PR_SET_CHILD_SUBREAPER = 36
PROC = Path("/proc")

_SUBREAPER: bool | None = None


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux; once per process). Whether it is one."""
    global _SUBREAPER
    if _SUBREAPER is None:
        _SUBREAPER = False
        if sys.platform.startswith("linux"):
            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(None, use_errno=True)
                _SUBREAPER = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    return _SUBREAPER


def _parent(pid: int) -> int | None:
    try:
        return int((PROC / str(pid) / "stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _carries(pid: int, marker: bytes) -> bool:
    try:
        return marker in (PROC / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return False


def descendants(root: int, token: str) -> set[int]:
    """The processes below ``root`` (by parent links) and those that carry ``token``, not
    ``root`` itself nor this process; empty where there is no ``/proc``."""
    if not PROC.is_dir():
        return set()
    marker = f"{TOKEN_VARIABLE}={token}".encode()
    parents: dict[int, int] = {}
    found: set[int] = set()
    me = os.getpid()
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid in (root, me):
            continue
        parent = _parent(pid)
        if parent is not None:
            parents[pid] = parent
        if _carries(pid, marker):
            found.add(pid)
    below = {root}
    grew = True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in below and pid not in below}
        below |= more
        grew = bool(more)
    return (found | below) - {root, me}


def kill_descendants(root: int, token: str, rounds: int = 5) -> set[int]:
    """Kill (SIGKILL) every process :func:`descendants` finds, again until none is left
    (one may fork as it is found); returns them all, for :func:`reap`."""
    killed: set[int] = set()
    for _ in range(rounds):
        pids = descendants(root, token) - killed
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed |= pids
    return killed


def reap(pids: set[int], seconds: float = 2.0) -> None:
    """Wait for the killed ``pids`` that are (or become, once their killed parent has exited)
    children of this process, up to ``seconds``; the others are init's to reap."""
    end = time.monotonic() + seconds
    left = set(pids)
    while left:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not a child of this process: wait while its parent is a killed one
                done = 0 if _parent(pid) in pids else pid
            except OSError:
                done = pid
            if done:
                left.discard(pid)
        if not left or time.monotonic() > end:
            return
        time.sleep(0.005)


__all__ = ["TOKEN_VARIABLE", "become_subreaper", "descendants", "kill_descendants", "reap"]
