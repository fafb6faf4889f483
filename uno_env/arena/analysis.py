"""From records to results: per-game credit, win rates with intervals, ratings, per-seat
win rates and hand lengths; the leaderboard, the files and the plot."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from uno_env.agents.program import FAILURE_KINDS

from .ratings import bootstrap_ratings, elo, fit_luce, group_matches, wilson_interval
from .schedule import Schedule


def match_results(schedule: Schedule, records: dict, num_agents: int, teams: list[int] | None = None):
    """Per game of the tournament: the multiplicity of each entrant, the win credit of each
    entrant (1 split among the winners' entrants), and the set of winning entrants. A game
    that a seat forfeited is lost by that seat (its team: ``teams``, the team of each seat)
    and won by the other seats still in it (outcome not -1), who share the credit; with
    ``rotate``, a player who forfeited a hand cannot win the game."""
    winners, totals = match_winners(schedule, records, teams)
    multiplicity, credit, won, decided, _ = tally_matches(schedule, winners, num_agents)
    return multiplicity, credit, won, decided, totals


def match_winners(schedule: Schedule, records: dict, teams: list[int] | None = None) -> tuple[list, list]:
    """Per game of the tournament, its winners (indices into ``schedule.match_players[m]``,
    as :func:`match_results` credits them), and with ``rotate`` each player's total."""
    totals = []
    winners_of = []
    forfeit = records.get("forfeit")
    for m, entries in enumerate(schedule.matches):
        who = schedule.match_players[m]
        if schedule.kind == "rotate":
            points = np.zeros(len(who))
            truncated = False
            out = np.zeros(len(who), dtype=bool)
            for job, seat, player in entries:
                points[player] += records["scores"][job, seat]
                truncated |= bool(records["truncated"][job])
                out[player] |= forfeit is not None and forfeit[job] == seat
            totals.append(points)
            best = np.where(out, -np.inf, points)
            winners = np.flatnonzero(best == best.max()) if not truncated and not out.all() else np.array([], int)
        else:
            job = entries[0][0]
            winners = np.flatnonzero(records["outcome"][job] > 0)
            if forfeit is not None and forfeit[job] >= 0:
                team = teams if teams is not None else list(range(len(records["outcome"][job])))
                winners = np.array(
                    [s for s, o in enumerate(records["outcome"][job]) if o >= 0 and team[s] != team[forfeit[job]]],
                    dtype=int,
                )
        winners_of.append(winners)
    return winners_of, totals


def tally_matches(schedule: Schedule, winners: list, num_agents: int):
    """From each game's winners (:func:`match_winners`): per game and entrant its
    multiplicity (seats held), win credit, whether it won (with any seat), the games with a
    winner, and how many of its seats won."""
    count = schedule.num_matches
    multiplicity = np.zeros((count, num_agents))
    credit = np.zeros((count, num_agents))
    won = np.zeros((count, num_agents), dtype=bool)
    seats_won = np.zeros((count, num_agents))
    decided = np.array([len(w) > 0 for w in winners], dtype=bool)
    for m, who in enumerate(schedule.match_players):
        for e in who:
            multiplicity[m, e] += 1
        for p in winners[m]:
            credit[m, who[p]] += 1.0 / len(winners[m])
            won[m, who[p]] = True
            seats_won[m, who[p]] += 1
    return multiplicity, credit, won, decided, seats_won


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
    """The results of a tournament: the leaderboard (best rated first), per-seat win rates, hand
    lengths, games without a winner, and the head-to-head table (two-player mixed schedule) or
    the results against the field (field schedule)."""
    k = len(entrants)
    n = config.num_players
    teams = [s % config.num_teams for s in range(n)] if config.partners else list(range(n))
    winners, _ = match_winners(schedule, records, teams)
    multiplicity, credit, won, decided, seats_won = tally_matches(schedule, winners, k)
    present = multiplicity > 0
    ratings = fit_ratings(multiplicity[decided], credit[decided], seed, bootstrap) if k > 1 else None
    leaderboard = leaderboard_rows(entrants, schedule, records, multiplicity, seats_won, ratings)
    result = {
        "leaderboard": leaderboard,
        "seats": seat_results(records, len(schedule.jobs), n, teams),
        "hand_length": hand_lengths(config, records),
        "undecided_games": int((~decided).sum()),
    }
    if schedule.kind == "mixed" and n == 2 and k > 1:
        result["head_to_head"] = head_to_head(entrants, present, multiplicity, won)
    if schedule.kind == "field":
        result["field"] = field_results(config, entrants, present, won, decided)
    return result


def fit_ratings(
    multiplicity, credit, seed: int, bootstrap: int
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Elo-scale ratings of a Luce fit to the decided games, with 95% bootstrap bounds
    (None without ``bootstrap`` samples)."""
    table = group_matches(multiplicity, credit)
    gamma = fit_luce(table.multiplicity, table.credit * table.count[:, None], table.count)
    if bootstrap <= 0:
        return elo(gamma), None, None
    boot = bootstrap_ratings(table, bootstrap, seed, start=gamma)
    lo, hi = np.percentile(boot, [2.5, 97.5], axis=0)
    rating = elo(gamma)
    # a one-sided result puts every sample at the estimate, give or take rounding: the
    # interval holds its estimate
    return rating, np.minimum(lo, rating), np.maximum(hi, rating)


def leaderboard_rows(entrants, schedule: Schedule, records: dict, multiplicity, seats_won, ratings) -> list[dict]:
    """One row per entrant (games, seats held, wins, win rate per seat held and interval, share
    of the table, points and decisions per hand, rating and interval, seconds per hand of a
    Python agent), best first: by rating, then win rate, then label. ``wins`` counts its seats
    that won, so that an agent holding several seats of a table (the field of ``field``, or a
    schedule of fewer agents than seats) is not credited with the wins of all of them: its
    win rate compares with one seat's fair share. The interval counts games (an agent's
    seats at one table win together or exclude each other: counting seats would narrow it)."""
    present = multiplicity > 0
    hands = records["rounds"]
    per_hand_steps = records["steps"] / np.maximum(hands, 1)
    lineups = np.array(schedule.jobs, dtype=np.int64).reshape(len(schedule.jobs), -1)
    rating, rating_lo, rating_hi = ratings if ratings is not None else (None, None, None)
    rows = []
    for i, entrant in enumerate(entrants):
        here = present[:, i]
        games = int(here.sum())
        seats = int(multiplicity[here, i].sum())
        wins = int(seats_won[here, i].sum())
        rate = wins / seats if seats else 0.0
        seated = lineups == i  # [jobs, seats]
        seat_hands = int((seated * hands[:, None]).sum())
        seconds = float(records["agent_seconds"][seated].sum())
        seat_steps = per_hand_steps[seated.any(axis=1)]
        rows.append(
            {
                "agent": entrant.label,
                "games": games,
                "seats": seats,
                "wins": wins,
                "win_rate": rate,
                "win_rate_ci": list(wilson_interval(wins if seats == games else rate * games, games)),
                "table_share": float(np.mean(multiplicity[here, i] / multiplicity[here].sum(axis=1))) if games else 0.0,
                "points_per_hand": float(records["scores"][seated].sum()) / max(seat_hands, 1),
                "mean_hand_length": float(np.mean(seat_steps)) if len(seat_steps) else 0.0,
                "rating": float(rating[i]) if rating is not None else None,
                "rating_ci": [float(rating_lo[i]), float(rating_hi[i])]
                if rating_lo is not None and rating_hi is not None
                else None,
                "seconds_per_hand": seconds / max(seat_hands, 1) if entrant.policy_id is None else None,
                **failure_counts(records, seated),
            }
        )
    order = sorted(
        range(len(rows)), key=lambda i: (-(rows[i]["rating"] or 0.0), -rows[i]["win_rate"], entrants[i].label)
    )
    return [rows[i] for i in order]


def failure_counts(records: dict, seated: np.ndarray) -> dict:
    """An entrant's ``forfeits`` (table games its seat forfeited) and ``failures`` by kind
    (:data:`~uno_env.agents.program.FAILURE_KINDS`), from its seats ``seated`` [jobs, seats]."""
    if "forfeit" not in records:
        return {"forfeits": 0, "failures": dict.fromkeys(FAILURE_KINDS, 0)}
    seats = np.arange(seated.shape[1])
    forfeits = int((seated & (records["forfeit"][:, None] == seats[None, :])).sum())
    codes = records["failures"][seated]
    failures = {kind: int((codes == 1 + k).sum()) for k, kind in enumerate(FAILURE_KINDS)}
    return {"forfeits": forfeits, "failures": failures}


def seat_results(records: dict, games: int, n: int, teams: list[int] | None = None) -> list[dict]:
    """Per seat (seat 0 plays first): games, wins, win rate and its 95% interval; a game
    another team forfeited is won by the seats still in it (as in :func:`match_results`)."""
    won = records["outcome"] > 0
    if "forfeit" in records:
        team = np.array(teams if teams is not None else range(n))
        forfeit = records["forfeit"]
        other = (forfeit[:, None] >= 0) & (team[None, :] != team[np.maximum(forfeit, 0)][:, None])
        won |= other & (records["outcome"] >= 0)
    seats = []
    for s in range(n):
        wins = int(won[:, s].sum())
        lo, hi = wilson_interval(wins, games)
        rate = wins / games if games else 0.0
        seats.append({"seat": s, "games": games, "wins": wins, "win_rate": rate, "win_rate_ci": [lo, hi]})
    return seats


def hand_lengths(config, records: dict) -> dict:
    """Decisions per hand (and, for whole games, hands per game), and the games cut at the step limit."""
    hands = records["rounds"]
    lengths = length_stats(records["steps"] / np.maximum(hands, 1))
    lengths["truncated"] = int(records["truncated"].sum())
    lengths["unit"] = "decisions per hand"
    if config.episode == "game":
        lengths["hands_per_game"] = length_stats(hands)
    return lengths


def head_to_head(entrants, present, multiplicity, won) -> dict[str, dict[str, dict]]:
    """Row agent's win rate against the column agent, over the games in which both sit once."""
    h2h: dict[str, dict[str, dict]] = {}
    for a in range(len(entrants)):
        for b in range(len(entrants)):
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
    return h2h


def field_results(config, entrants, present, won, decided) -> dict:
    """The ``field`` schedule: agent 0's (its team's, with partners) win rate against each
    other agent filling the other seats, with its 95% interval, the fair share (one seat's,
    one team's with partners) and their ratio."""
    fair = 1 / config.num_teams
    out = {}
    for j in range(1, len(entrants)):
        games_j = present[:, j] & present[:, 0]
        games = int(games_j.sum())
        wins = int(won[games_j, 0].sum())
        lo, hi = wilson_interval(wins, games)
        rate = wins / games if games else 0.0
        out[entrants[j].label] = {
            "agent": entrants[0].label,
            "games": games,
            "wins": wins,
            "undecided": int((games_j & ~decided).sum()),
            "win_rate": rate,
            "win_rate_ci": [lo, hi],
            "fair_share": fair,
            "ratio": rate / fair,
            "ratio_ci": [lo / fair, hi / fair],
        }
    return out


# ---------------------------------------------------------------------------- output
def format_leaderboard(summary: dict) -> str:
    """The leaderboard as text: a row per agent, the per-seat win rates, the hand lengths, and
    the results against the field or head to head where the schedule has them."""
    rows = summary["leaderboard"]
    width = max([len(r["agent"]) for r in rows] + [5])
    lines = leaderboard_lines(rows, width) + several_seats_lines(rows)
    seats = "  ".join(
        f"seat {s['seat']}: {s['win_rate']:.3f} [{s['win_rate_ci'][0]:.3f}, {s['win_rate_ci'][1]:.3f}]"
        for s in summary["seats"]
    )
    lines.append("")
    lines.append(f"per-seat win rate (seat 0 plays first): {seats}")
    lines += hand_length_lines(summary["hand_length"])
    if summary.get("field"):
        lines += field_lines(summary["field"], "games" if "hands_per_game" in summary["hand_length"] else "hands")
    if summary.get("head_to_head"):
        lines += head_to_head_lines(summary["head_to_head"], [r["agent"] for r in rows], width)
    lines += failure_lines(rows)
    return "\n".join(lines)


def several_seats_lines(rows: list[dict]) -> list[str]:
    """Where an agent held several seats of a table: a line saying that its win rate is per seat held."""
    several = [f"{r['agent']} {r['seats']} seats in {r['games']} games" for r in rows if r["seats"] != r["games"]]
    if not several:
        return []
    return [f"win rate: the share of the agent's seats that won, for one seat's fair share ({'; '.join(several)})"]


def failure_lines(rows: list[dict]) -> list[str]:
    """Per entrant that failed: its forfeits and its failures by kind."""
    lines = []
    for r in rows:
        kinds = {kind: count for kind, count in r.get("failures", {}).items() if count}
        if kinds or r.get("forfeits"):
            said = ", ".join(f"{kind} {count}" for kind, count in kinds.items())
            lines.append(f"  {r['agent']}: {r['forfeits']} forfeited of {r['games']} games; failures: {said}")
    return ["", "failures (a forfeit is a lost game):"] + lines if lines else []


def leaderboard_lines(rows: list[dict], width: int) -> list[str]:
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
    return lines


def hand_length_lines(hl: dict) -> list[str]:
    lines = []
    if "mean" in hl:
        lines.append(
            f"hand length (decisions): mean {hl['mean']:.0f}, median {hl['median']:.0f}, "
            f"10-90% {hl['p10']:.0f}-{hl['p90']:.0f}, max {hl['max']}; truncated {hl['truncated']}"
        )
    if "hands_per_game" in hl:
        hg = hl["hands_per_game"]
        lines.append(f"hands per game: mean {hg['mean']:.1f}, median {hg['median']:.0f}, max {hg['max']}")
    return lines


def field_lines(field: dict, unit: str) -> list[str]:
    """``unit``: what one outcome is, ``hands`` or (whole games) ``games``."""
    lines = ["", "against the field (the first agent in one seat, or one team; the other agent in the rest):"]
    for label, cell in field.items():
        lines.append(
            f"  {cell['agent']} vs {label}: {cell['win_rate']:.3f} [{cell['win_rate_ci'][0]:.3f}, "
            f"{cell['win_rate_ci'][1]:.3f}] over {cell['games']} {unit}; fair share {cell['fair_share']:.3f}, "
            f"ratio {cell['ratio']:.2f} [{cell['ratio_ci'][0]:.2f}, {cell['ratio_ci'][1]:.2f}]"
        )
    return lines


def head_to_head_lines(h2h: dict, labels: list[str], width: int) -> list[str]:
    lines = ["", "head to head (row's win rate against column):"]
    lines.append(" " * (width + 2) + "  ".join(f"{lab[:12]:>12}" for lab in labels))
    for a in labels:
        cells = []
        for b in labels:
            cell = h2h.get(a, {}).get(b)
            cells.append(f"{cell['win_rate']:12.3f}" if cell else f"{'-':>12}")
        lines.append(f"{a:<{width}}  " + "  ".join(cells))
    return lines


def write_outputs(out: Path, name: str, summary: dict, schedule: Schedule, entrants, records) -> list[Path]:
    """The tournament's files in ``out``: ``NAME.json`` (the summary), ``NAME_leaderboard.csv``,
    ``NAME_games.csv`` (a row per table game) and ``NAME.png`` (:func:`plot`): :func:`output_names`."""
    out.mkdir(parents=True, exist_ok=True)
    summary_name, leaderboard_name, games_name, plot_name = output_names(name)
    path = out / summary_name
    path.write_text(json.dumps(summary, indent=2) + "\n")
    paths = [path]
    paths.append(write_leaderboard_csv(out / leaderboard_name, summary["leaderboard"]))
    paths.append(write_games_csv(out / games_name, schedule, entrants, records))
    path = out / plot_name
    plot(path, summary, records)
    paths.append(path)
    return paths


def output_names(name: str) -> tuple[str, str, str, str]:
    """The names of the files :func:`write_outputs` writes: the summary, the leaderboard CSV,
    the games CSV and the plot."""
    return f"{name}.json", f"{name}_leaderboard.csv", f"{name}_games.csv", f"{name}.png"


LEADERBOARD_COLUMNS = (
    "agent",
    "games",
    "seats",
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
    "forfeits",
    *(f"failures_{kind.replace(' ', '_')}" for kind in FAILURE_KINDS),
)


def write_leaderboard_csv(path: Path, leaderboard: list[dict]) -> Path:
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(LEADERBOARD_COLUMNS)
        for r in leaderboard:
            rating, rating_ci = r["rating"], r["rating_ci"]
            writer.writerow(
                [
                    r["agent"],
                    r["games"],
                    r["seats"],
                    r["wins"],
                    f"{r['win_rate']:.6f}",
                    f"{r['win_rate_ci'][0]:.6f}",
                    f"{r['win_rate_ci'][1]:.6f}",
                    f"{r['points_per_hand']:.4f}",
                    "" if rating is None else f"{rating:.2f}",
                    "" if rating_ci is None else f"{rating_ci[0]:.2f}",
                    "" if rating_ci is None else f"{rating_ci[1]:.2f}",
                    f"{r['mean_hand_length']:.2f}",
                    "" if r["seconds_per_hand"] is None else f"{r['seconds_per_hand']:.5f}",
                    r.get("forfeits", 0),
                    *(r.get("failures", {}).get(kind, 0) for kind in FAILURE_KINDS),
                ]
            )
    return path


def write_games_csv(path: Path, schedule: Schedule, entrants, records: dict) -> Path:
    """A row per table game: its game of the tournament, the agent, outcome and score of each
    seat, who went out last, decisions, hands and whether it was cut at the step limit."""
    n = records["outcome"].shape[1]
    match_of = {job: m for m, entries in enumerate(schedule.matches) for job, _, _ in entries}
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            ["table_game", "match"]
            + [f"seat{s}_agent" for s in range(n)]
            + [f"seat{s}_outcome" for s in range(n)]
            + [f"seat{s}_score" for s in range(n)]
            + ["went_out", "decisions", "hands", "truncated", "forfeit_seat", "failures"]
        )
        for j, lineup in enumerate(schedule.jobs):
            writer.writerow(
                [j, match_of.get(j, j)]
                + [entrants[e].label for e in lineup]
                + records["outcome"][j].tolist()
                + records["scores"][j].tolist()
                + [int(records["last_winner"][j]), int(records["steps"][j]), int(records["rounds"][j])]
                + [int(records["truncated"][j])]
                + [int(records["forfeit"][j]) if "forfeit" in records else -1, failure_text(records, j)]
            )
    return path


def failure_text(records: dict, job: int) -> str:
    """The failures of table game ``job`` in a CSV cell: ``seat:kind`` joined by ``;``."""
    notes = records["notes"][job] if "notes" in records else None
    return ";".join(f"{note['seat']}:{note['what']}" for note in notes or ())


def plot(path: Path, summary: dict, records: dict) -> None:
    """Ratings and win rates with their intervals, and the hand-length histogram."""
    import matplotlib  # plots only: a tournament loads it when it writes its files

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    rows = summary["leaderboard"]
    y = np.arange(len(rows))[::-1]
    fig = plt.figure(figsize=(14, max(3.5, 0.45 * len(rows) + 2.0)))
    grid = fig.add_gridspec(1, 3, width_ratios=[1.0, 1.0, 0.9])
    ax = fig.add_subplot(grid[0])
    plot_ratings(ax, rows, y)
    plot_win_rates(fig.add_subplot(grid[1], sharey=ax), rows, y)
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


def plot_ratings(ax, rows: list[dict], y: np.ndarray) -> None:
    if rows and rows[0]["rating"] is not None:
        ratings = np.array([r["rating"] for r in rows])
        if rows[0]["rating_ci"] is not None:
            lo = np.maximum(ratings - np.array([r["rating_ci"][0] for r in rows]), 0.0)
            hi = np.maximum(np.array([r["rating_ci"][1] for r in rows]) - ratings, 0.0)
            ax.errorbar(ratings, y, xerr=[lo, hi], fmt="o", capsize=4)
        else:
            ax.plot(ratings, y, "o")
        ax.axvline(1500, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, [r["agent"].replace("$", r"\$") for r in rows])  # a command's $ is not mathtext
    ax.set_xlabel("Elo-scale rating, 95% bootstrap interval")
    ax.set_title("Bradley-Terry rating")


def plot_win_rates(ax, rows: list[dict], y: np.ndarray) -> None:
    rates = np.array([r["win_rate"] for r in rows])
    lo = np.maximum(rates - np.array([r["win_rate_ci"][0] for r in rows]), 0.0)
    hi = np.maximum(np.array([r["win_rate_ci"][1] for r in rows]) - rates, 0.0)
    ax.errorbar(rates, y, xerr=[lo, hi], fmt="o", capsize=4, color="tab:green", label="win rate")
    ax.plot([r["table_share"] for r in rows], y, "|", color="grey", markersize=14, label="fair share")
    ax.tick_params(labelleft=False)
    ax.set_xlabel("win rate, 95% Wilson interval")
    ax.set_title("win rate")
    ax.legend(loc="best", fontsize=8)
