"""What ``uno ladder show`` says: the ratings of every entrant with 95% intervals (the
tournament's Luce model fitted on every game in the file, bootstrap intervals), games and win
rates, head to head, per-seat win rates; as text, as one JSON object, or as an HTML page
with the ratings' plot."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path

import numpy as np

from uno_env.engine import RuleConfig

from .analysis import analyse, format_leaderboard, head_to_head, match_results, plot_ratings, plot_win_rates
from .ladder_store import LadderStore
from .schedule import Entrant, Schedule

BOOTSTRAP = 200
"""Bootstrap samples of the rating intervals."""


def standings(store: LadderStore, bootstrap: int = BOOTSTRAP) -> dict:
    """The ladder's results: ``games`` (the total), ``entrants`` (best rated first: ``name``,
    ``games``, ``rating``, ``interval``, ...), ``head_to_head``, ``seats`` and the rules."""
    config = store.rules()
    rows = store.entrants()
    columns = {row.id: c for c, row in enumerate(rows)}
    _, seatings, records = store.games()
    n = config.num_players
    out = {
        "file": str(store.path),
        "players": n,
        "episode": config.episode,
        "settings": config.to_dict(),
        "seed": store.seed(),
        "games": len(seatings),
    }
    entrants = [Entrant(row.label, row.spec, {}, 0 if row.compiled else None) for row in rows]
    lineups = [tuple(columns[e] for e in seating) for seating in seatings]
    matches = [[(j, s, s) for s in range(n)] for j in range(len(lineups))]
    schedule = Schedule("mixed", n, n, lineups, matches, lineups, 1)
    if not lineups or len(rows) < 2:
        summary: dict = {"leaderboard": [empty_row(e) for e in entrants], "head_to_head": {}, "seats": []}
    else:
        summary = analyse(config, entrants, schedule, records, store.seed(), bootstrap)
        teams = [s % config.num_teams for s in range(n)] if config.partners else list(range(n))
        multiplicity, _, won, _, _ = match_results(schedule, records, len(entrants), teams)
        summary["head_to_head"] = head_to_head(entrants, multiplicity > 0, multiplicity, won)
    by_label = {row.label: row for row in rows}
    out["entrants"] = [entrant_entry(r, by_label[r["agent"]]) for r in summary["leaderboard"]]
    out["head_to_head"] = summary["head_to_head"]
    out["seats"] = summary["seats"]
    out["summary"] = summary
    return out


def empty_row(entrant: Entrant) -> dict:
    return {"agent": entrant.label, "games": 0, "wins": 0, "win_rate": 0.0, "win_rate_ci": [0.0, 1.0]}


def entrant_entry(r: dict, row) -> dict:
    """One entrant of ``--json``."""
    return {
        "name": row.label,
        "spec": row.spec,
        "version": row.version,
        "plays": not row.retired,
        "games": r["games"],
        "wins": r["wins"],
        "win_rate": r["win_rate"],
        "win_rate_interval": r["win_rate_ci"],
        "rating": r.get("rating"),
        "interval": r.get("rating_ci"),
        "forfeits": r.get("forfeits", 0),
        "identity": row.identity,
        "identity_of": row.identity_of,
        "added": row.added,
    }


def public(result: dict) -> dict:
    """The JSON of ``show --json`` (the analysis' working summary left out)."""
    return {k: v for k, v in result.items() if k != "summary"}


def text(result: dict) -> str:
    """The standings as text: a header, the leaderboard (as the tournament's), the retired entrants."""
    default = RuleConfig(num_players=result["players"], episode=result["episode"]).to_dict()
    changed = [f"{k}={v}" for k, v in result["settings"].items() if v != default[k]]
    lines = [
        f"{result['file']}: {result['games']} games, {result['players']} players, episode {result['episode']}, "
        f"seed {result['seed']}; rules: {', '.join(changed) or 'the defaults'}",
        "",
    ]
    if result["games"] == 0:
        names = ", ".join(e["name"] for e in result["entrants"]) or "none"
        return "\n".join([*lines, f"no games yet (entrants: {names}): uno ladder play FILE --games N"])
    lines.append(format_leaderboard(result["summary"]))
    retired = [e["name"] for e in result["entrants"] if not e["plays"]]
    if retired:
        lines += ["", "retired (a newer version plays; their games stay): " + ", ".join(retired)]
    return "\n".join(lines)


def figure_png(result: dict) -> bytes:
    """The ratings and the win rates with their intervals, as a PNG."""
    import matplotlib  # plots only

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    rows = [r for r in result["summary"]["leaderboard"] if r.get("rating") is not None]
    y = np.arange(len(rows))[::-1]
    fig = plt.figure(figsize=(11, max(3.0, 0.45 * len(rows) + 1.8)))
    grid = fig.add_gridspec(1, 2)
    ax = fig.add_subplot(grid[0])
    plot_ratings(ax, rows, y)
    plot_win_rates(fig.add_subplot(grid[1], sharey=ax), rows, y)
    fig.suptitle(f"{result['games']} games, {result['players']} players, episode {result['episode']}", fontsize=10)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    plt.close(fig)
    return buffer.getvalue()


def html_page(result: dict) -> str:
    """One self-contained page: the leaderboard, head to head and the plot (every name escaped)."""
    e = html.escape
    head = "<tr><th>entrant</th><th>games</th><th>win rate [95%]</th><th>rating [95%]</th><th>spec</th></tr>"
    body = []
    for r in result["entrants"]:
        rating = "-" if r["rating"] is None else f"{r['rating']:.0f}"
        if r["interval"] is not None:
            rating += f" [{r['interval'][0]:.0f}, {r['interval'][1]:.0f}]"
        lo, hi = r["win_rate_interval"]
        name = e(r["name"]) + ("" if r["plays"] else " <em>(retired)</em>")
        body.append(
            f"<tr><td>{name}</td><td>{r['games']}</td><td>{r['win_rate']:.3f} [{lo:.3f}, {hi:.3f}]</td>"
            f"<td>{rating}</td><td><code>{e(r['spec'])}</code></td></tr>"
        )
    names = [r["name"] for r in result["entrants"]]
    h2h = ["<tr><th></th>" + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>"]
    for a in names:
        cells = []
        for b in names:
            cell = result["head_to_head"].get(a, {}).get(b)
            cells.append(f"<td>{cell['win_rate']:.3f} ({cell['games']})</td>" if cell else "<td>-</td>")
        h2h.append(f"<tr><th>{e(a)}</th>" + "".join(cells) + "</tr>")
    plot = ""
    if result["games"]:
        data = base64.b64encode(figure_png(result)).decode("ascii")
        plot = f'<img alt="ratings and win rates with 95% intervals" src="data:image/png;base64,{data}">'
    title = f"uno ladder: {e(Path(result['file']).name)}"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}td:first-child,th:first-child{{text-align:left}}
img{{max-width:100%}}</style></head>
<body><h1>{title}</h1>
<p>{result["games"]} games, {result["players"]} players, episode {e(result["episode"])}, seed {result["seed"]}.
Ratings: a Luce (Bradley-Terry) model of who wins each game, on the Elo scale (the mean at 1500),
with 95% bootstrap intervals; win rates with 95% Wilson intervals.</p>
<table>{head}{"".join(body)}</table>
<h2>Head to head</h2><p>The row's win rate against the column, over the games both sat at (games).</p>
<table>{"".join(h2h)}</table>
{plot}
<h2>Rules</h2><pre>{e(json.dumps(result["settings"], indent=1))}</pre>
</body></html>
"""
