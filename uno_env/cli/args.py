"""Checks of the ``uno`` commands' values, made before a command starts: a value that
cannot end (a NaN or infinite duration), cannot fit (more games than the memory holds)
or cannot be used (a negative count, a folder that cannot be written) is refused with
one line that names it, exit status 2.

The ``*_type`` functions are argparse ``type=`` functions (argparse names the option in
its error); the ``check_*`` functions raise ValueError naming the option.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from uno_env.engine import RuleConfig

MAX_SECONDS = 3600.0
"""The longest measurement ``uno bench --seconds`` takes (one hour)."""
SEED_LIMIT = 2**64
"""Seeds are 0 .. 2**64 - 1, as the engine takes them."""
MIN_PLAYERS, MAX_PLAYERS = 2, 10


def duration_type(limit: float = MAX_SECONDS) -> Callable[[str], float]:
    """Seconds: a finite number above 0 and at most ``limit``."""

    def duration(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
        if not math.isfinite(value) or not 0 < value <= limit:
            raise argparse.ArgumentTypeError(f"expected seconds above 0 and at most {limit:g}, got {text!r}")
        return value

    duration.__name__ = "seconds"
    return duration


def count_type(low: int, high: int) -> Callable[[str], int]:
    """An integer ``low`` .. ``high`` (a bound to say so where a larger count could not end or fit)."""

    def count(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected an integer {low}..{high}, got {text!r}")
        return value

    count.__name__ = "count"
    return count


players_type = count_type(MIN_PLAYERS, MAX_PLAYERS)
"""Players at the table (R-DECK-4)."""
seed_type = count_type(0, SEED_LIMIT - 1)
"""A seed, 0 .. 2**64 - 1."""


def available_memory() -> int:
    """Bytes of memory this machine can give now (MemAvailable where Linux says it, else
    the physical memory)."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def gib(count: float) -> str:
    return f"{count / 2**30:.3g} GiB"


def check_memory(option: str, count: int, bytes_each: int, what: str, available: int | None = None) -> None:
    """Refuse ``count`` items of about ``bytes_each`` bytes each where they would not fit
    in the memory available (ValueError naming the option)."""
    available = available_memory() if available is None else available
    needed = count * bytes_each
    if needed > available:
        raise ValueError(
            f"{option} {count}: needs about {gib(needed)} of memory ({bytes_each} bytes per {what}), "
            f"more than the {gib(available)} available; use at most {max(available // bytes_each, 1)}"
        )


def check_output_folder(option: str, folder: Path) -> None:
    """The folder (or the nearest folder above it that exists, where it will be made) can be
    written; nothing is created (ValueError naming the option otherwise)."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {str(folder)!r}: not a folder")
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    problem = write_problem(existing)
    if problem:
        raise ValueError(f"{option} {str(folder)!r}: cannot write into {str(existing)!r} ({problem})")


def write_problem(folder: Path) -> str:
    """Why nothing can be written into ``folder`` (an empty string: it can), by trying."""
    if not folder.is_dir():
        return "not a folder"
    try:  # os.access alone says yes to root on a read-only file system
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        return err.strerror or str(err)
    return "" if os.access(folder, os.W_OK | os.X_OK) else "no permission"


def add_rule_arguments(parser: argparse.ArgumentParser, episode_default: str | None, players_default: int = 2) -> None:
    """``--players``, ``--episode`` and ``--set key=value`` (any RuleConfig setting)."""
    parser.add_argument(
        "--players", type=int, default=None, help=f"players at the table, 2..10 (default {players_default})"
    )
    parser.add_argument(
        "--episode",
        choices=("round", "game"),
        default=episode_default,
        help="one hand ('round', the default) or a whole game to the target score ('game')",
    )
    parser.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any rule setting, e.g. --set deck=fashion_trend --set uno_call=auto (repeatable)",
    )


def add_runner_arguments(parser: argparse.ArgumentParser, workers_default: int, ray_note: str = "") -> None:
    """``--workers N`` (processes for the agents that are not compiled, or with Ray the tasks in
    flight) and ``--ray [ADDRESS]``; ``ray_note`` ends the latter's help."""
    parser.add_argument(
        "--workers",
        type=count_type(1, 4096),
        default=None,
        help=f"processes for non-compiled agents (default {workers_default}); with --ray, tasks in flight "
        "(default: all CPUs)",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks: on the cluster at ADDRESS ('auto', 'ray://host:10001'; "
        f"default RAY_ADDRESS), else a local Ray{ray_note} (docs/SCALE.md)",
    )


def rule_config(args, default_players: int = 2):
    """The RuleConfig of parsed ``add_rule_arguments`` options (ValueError naming a bad one)."""
    fields = {f.name: f for f in dataclasses.fields(RuleConfig)}
    settings: dict = {}
    for item in args.settings:
        key, value = rule_setting(item, fields)
        settings[key] = value
    for key, value in (("num_players", args.players), ("episode", args.episode)):
        if value is None:
            continue
        if key in settings and settings[key] != value:
            flag = "--players" if key == "num_players" else f"--{key}"
            raise ValueError(f"--set {key}={settings[key]!r} contradicts {flag} {value}")
        settings[key] = value
    settings.setdefault("num_players", default_players)
    return RuleConfig.from_kwargs(**settings)


def rule_setting(item: str, fields: dict) -> tuple:
    """One ``--set KEY=VALUE``: the setting and its value, of the type of its default."""
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep:
        raise ValueError(f"--set {item!r}: expected KEY=VALUE, e.g. --set deck=fashion_trend")
    if key not in fields:
        raise ValueError(f"--set {item!r}: unknown setting {key!r}; known settings: {', '.join(sorted(fields))}")
    default = fields[key].default
    value = value.strip()
    if isinstance(default, bool):
        if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(f"--set {item!r}: {key} takes true or false")
        return key, value.lower() in ("true", "1", "yes")
    if isinstance(default, int):
        try:
            return key, int(value)
        except ValueError:
            raise ValueError(f"--set {item!r}: {key} takes an integer") from None
    return key, value
