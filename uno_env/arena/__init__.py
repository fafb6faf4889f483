"""The tournament library behind ``uno tournament`` (uno_env/cli/tournament.py): schedules
and seatings (:mod:`.schedule`), the table loops (:mod:`.tables`), running them here or on
Ray (:mod:`.runners`, :mod:`.distributed`), ratings and intervals (:mod:`.ratings`), and the
analysis, files and plot (:mod:`.analysis`). Beside it, ``uno match --sprt`` (:mod:`.match`,
the test in :mod:`.sprt`) and ``uno ladder`` (:mod:`.ladder`, its file :mod:`.ladder_store`,
its report :mod:`.ladder_report`).

>>> from uno_env.arena import run_tournament
>>> from uno_env import RuleConfig
>>> rules = RuleConfig(num_players=2, episode="round")
>>> summary, schedule, entrants, records = run_tournament(["keeper", "naive"], rules, games=20, seed=1)
>>> sorted(summary["head_to_head"])
['keeper', 'naive']
"""

from __future__ import annotations

import time

from .analysis import analyse, format_leaderboard, length_stats, match_results, output_names, plot, write_outputs
from .ladder import add_entrant, play_ladder
from .ladder_report import standings
from .ladder_store import LadderStore
from .match import run_match
from .ratings import bootstrap_ratings, elo, fit_luce, group_matches, wilson_interval
from .runners import DealTables, WorkerTables, run_jobs
from .schedule import (
    Entrant,
    Schedule,
    build_schedule,
    field_lineups,
    make_entrants,
    mixed_lineups,
    rotate_hands,
    seatings,
)
from .tables import (
    COMPILED_CHUNK,
    RECORD_FIELDS,
    TablePlayer,
    TournamentStopped,
    concat_records,
    empty_records,
    job_seeds,
    play_compiled,
    read_results,
    save_games,
    warm_up,
    warn_failures,
)


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
    strict: bool = False,
) -> tuple[dict, Schedule, list[Entrant], dict]:
    """Run a tournament; returns (summary, schedule, entrants, records). ``config`` is the
    table's RuleConfig; ``players`` the players of a game (8 for two-table rotation).
    ``workers``: processes (default 2), or with ``ray`` (a cluster address, or "local")
    Ray tasks in flight (default: every CPU of the cluster). An agent that fails (an
    outside program that dies, stalls, writes a bad line, breaks the framing, or an action
    the game refuses) forfeits that game and the run goes on: its failures are counted in
    the results and each is warned of (:class:`~uno_env.agents.program.ProgramFailureWarning`);
    ``strict`` stops at the first instead (:class:`TournamentStopped`)."""
    entrants = make_entrants(agents, config)
    players = players or config.num_players
    check_tables(config, schedule, players)
    if strict and ray is not None:
        raise ValueError("--strict stops at the first failure of a local run: drop --ray to debug an agent")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"--workers must be a positive integer, got {workers!r}")
    plan = build_schedule(schedule, len(entrants), players, games, orders, partners=config.partners)
    start = time.perf_counter()
    records = run_jobs(config, entrants, plan, seed, workers, progress, ray, strict)
    elapsed = time.perf_counter() - start
    warn_failures(records)
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


def check_tables(config, schedule: str, players: int) -> None:
    """The schedule fits the table: rotating partners play single hands at 4-player partner
    tables, 4 or 8 players; any other schedule, ``players`` at the table's seats."""
    if schedule == "rotate":
        if players not in (4, 8):
            raise ValueError(f"--schedule rotate (R-VAR-ROTATE) needs 4 or 8 players, got {players}")
        if config.num_players != 4 or not config.partners or config.episode != "round":
            raise ValueError("rotating partners play single hands at 4-player partner tables")
    elif players != config.num_players:
        raise ValueError(f"players={players} but the table has {config.num_players} seats")


__all__ = [
    "COMPILED_CHUNK",
    "DealTables",
    "Entrant",
    "LadderStore",
    "RECORD_FIELDS",
    "Schedule",
    "TablePlayer",
    "TournamentStopped",
    "WorkerTables",
    "add_entrant",
    "analyse",
    "bootstrap_ratings",
    "build_schedule",
    "concat_records",
    "elo",
    "field_lineups",
    "empty_records",
    "fit_luce",
    "format_leaderboard",
    "group_matches",
    "job_seeds",
    "length_stats",
    "make_entrants",
    "match_results",
    "mixed_lineups",
    "play_compiled",
    "play_ladder",
    "plot",
    "read_results",
    "rotate_hands",
    "run_jobs",
    "run_match",
    "run_tournament",
    "save_games",
    "seatings",
    "standings",
    "warm_up",
    "warn_failures",
    "wilson_interval",
    "output_names",
    "write_outputs",
]
