"""The measured tables of the docs, generated from the experiments' result files.

    python -m experiments.tables --write     # rewrite every marked table from experiments/results/
    python -m experiments.tables --check     # exit 1 naming each table that no longer matches its file

A table sits between ``<!-- experiment:NAME -->`` and ``<!-- /experiment:NAME -->`` in a doc;
``TABLES`` says which result file and which line of it each one is made from, and the
experiment that writes that file. The tests run ``--check``: a table edited by hand, or a
result file rerun without its table, fails. (``uno_env.docs`` does the same for the tables of
the package; nothing in ``uno_env`` imports this module.)
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from experiments import house_ladder, sprt

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "experiments" / "results"
DOCS = [
    ROOT / "docs" / "agents.md",
    ROOT / "docs" / "training.md",
    ROOT / "docs" / "is_my_bot_better.md",
    ROOT / "experiments" / "history" / "agents.md",
    ROOT / "experiments" / "history" / "training.md",
]
"""The docs whose measured tables are made here: the guide's pages (the current figures) and the
research record's histories (the figures of the runs they replaced)."""


def read(name: str, key: str) -> dict[str, dict]:
    """The newest line of each ``key`` in ``experiments/results/NAME``."""
    newest: dict[str, dict] = {}
    for line in (RESULTS / name).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            newest[row[key]] = row
    return newest


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def interval(ci, scale: float = 1.0, digits: int = 3) -> str:
    return f"[{ci[0] * scale:.{digits}f}, {ci[1] * scale:.{digits}f}]"


def source_note(rows: list[dict]) -> str:
    """The line under a table: what it was made from, when, where."""
    notes = []
    for row in rows:
        if row["source"].startswith("transcribed"):
            what = f"transcribed from the recorded run, docs commit {row['commit']}"
        else:
            what = f"measured at commit {row['commit']}"
        seconds = f", {row['seconds']:g} s" if row.get("seconds") is not None else ", time not recorded"
        notes.append(f"{what}, {row['date']}{seconds}, {row['machine']}")
    unique = list(dict.fromkeys(notes))
    shown = unique if len(unique) <= 2 else [unique[0], f"and {len(rows) - 1} more runs, each in the result file"]
    return "(" + "; ".join(shown) + ")"


def leaderboard(ladder: str, columns: tuple[str, ...] = ("win", "points", "rating")) -> str:
    row = read("ladders.jsonl", "ladder")[ladder]
    head = {
        "win": "win rate [95%]",
        "points": "points/hand",
        "rating": "rating [95%]",
        "search": "search time per hand",
    }
    lines = [f"`{row['command']}`", "", "| agent | " + " | ".join(head[c] for c in columns) + " |"]
    lines.append("|---" * (len(columns) + 1) + "|")
    for a in row["summary"]["leaderboard"]:
        cells = {
            "win": f"{a['win_rate']:.3f} {interval(a['win_rate_ci'])}",
            "points": f"{a['points_per_hand']:.1f}",
            "rating": f"{a['rating']:.0f} [{a['rating_ci'][0]:.0f}, {a['rating_ci'][1]:.0f}]",
            "search": "-" if a.get("seconds_per_hand") is None else f"{a['seconds_per_hand']:.2f} s",
        }
        lines.append(f"| {a['agent']} | " + " | ".join(cells[c] for c in columns) + " |")
    return "\n".join([*lines, "", source_note([row])])


def head_to_head(ladder: str) -> str:
    row = read("ladders.jsonl", "ladder")[ladder]
    h2h = row["summary"]["head_to_head"]
    agents = [a["agent"] for a in row["summary"]["leaderboard"]]
    games = {v["games"] for opponents in h2h.values() for v in opponents.values()}
    lines = [
        f"Head to head (row's win rate against column, {'/'.join(f'{g:,}' for g in sorted(games))} hands per pair):"
    ]
    lines += ["", "| | " + " | ".join(agents) + " |", "|---" * (len(agents) + 1) + "|"]
    for a in agents:
        cells = ["-" if b == a else f"{h2h[a][b]['win_rate']:.3f}" for b in agents]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def first_player() -> str:
    rows = read("ladders.jsonl", "ladder")
    lines = [
        "| agents | players | seat 0 win rate [95%] | fair | mean decisions per hand | median | 10-90% |",
        "|---|---|---|---|---|---|---|",
    ]
    used = [r for name, r in rows.items() if name.startswith("first_player_")]
    for r in used:
        s = r["summary"]
        seat, hl = s["seats"][0], s["hand_length"]
        lines.append(
            f"| {s['agents'][0]} | {s['players']} | {seat['win_rate']:.3f} {interval(seat['win_rate_ci'])} "
            f"| {1 / s['players']:g} | {hl['mean']:.0f} | {hl['median']:.0f} | {hl['p10']:.0f}-{hl['p90']:.0f} |"
        )
    return "\n".join([*lines, "", source_note(used)])


TARGETS = {"2p": 0.57, "3p": 1.15, "4p": 1.15, "6p": 1.10, "4p_partners": 0.55}
"""The strength targets of each shipped table (issues 2 and 3): a win rate (two players,
partners) or a ratio to the fair share."""
TABLE_NAMES = {
    "2p": "2 players",
    "3p": "3 players",
    "4p": "4 players",
    "6p": "6 players",
    "4p_partners": "4-player partners (a `ppo` team)",
}


def verdict(target: float, value: float, ci: list[float]) -> str:
    """Met or missed, and whether the interval says so too."""
    shown = f">= {target:.0%}" if target < 1 else f">= {target:.2f}x"
    if value >= target:
        return f"{shown}: met" + ("" if ci[0] >= target else ", the interval includes less")
    return f"{shown}: missed" + (", inside the interval" if ci[1] >= target else "")


def strength() -> str:
    rows = read("strength.jsonl", "ladder")
    lines = [
        "| table | against `tactical` [95%] | ratio [95%] | target | against `keeper` | against `random_play` |",
        "|---|---|---|---|---|---|",
    ]
    used = []
    for table, name in TABLE_NAMES.items():
        cells = {}
        for opponent in ("tactical", "keeper", "random_play"):
            r = rows[f"ppo_{table}_{opponent}"]
            used.append(r)
            f = r["summary"]["field"][opponent]
            cells[opponent] = f
        t = cells["tactical"]
        by_ratio = TARGETS[table] >= 1
        target = verdict(
            TARGETS[table], t["ratio"] if by_ratio else t["win_rate"], t["ratio_ci"] if by_ratio else t["win_rate_ci"]
        )
        lines.append(
            f"| {name} | {pct(t['win_rate'])} {interval(t['win_rate_ci'], 100, 1)} ({t['games']:,} hands) "
            f"| {t['ratio']:.2f} {interval(t['ratio_ci'], 1, 2)} | {target} "
            + "".join(f" | {pct(cells[o]['win_rate'])} ({cells[o]['ratio']:.2f})" for o in ("keeper", "random_play"))
            + " |"
        )
    return "\n".join([*lines, "", source_note(used)])


def distilled() -> str:
    rows = read("distilled.jsonl", "table")
    lines = [
        "| table | the file it replaced, averaged (`ppo` until 2026-12-04) | distilled, one pass (`ppo`) "
        "| paired: distilled minus averaged, points |",
        "|---|---|---|---|",
    ]
    for r in rows.values():
        a, d, p = r["averaged"], r["distilled"], r["paired"]
        otherwise = (
            f" ({p['hands_decided_otherwise']:,} hands decided otherwise)" if "hands_decided_otherwise" in p else ""
        )
        lines.append(
            f"| {r['label']} | {a['win_rate']}% [{a['ci'][0]}, {a['ci'][1]}] "
            f"| {d['win_rate']}% [{d['ci'][0]}, {d['ci'][1]}], {'ratio ' if r['table'] == '2p' else ''}{d['ratio']} "
            f"| {p['points']} [{p['ci'][0]}, {p['ci'][1]}]{otherwise} |"
        )
    return "\n".join([*lines, "", source_note(list(rows.values()))])


def search_curve(curve: str) -> str:
    rows = [r for r in read_all("search_curve.jsonl") if r["curve"] == curve]
    lines = [
        "| searcher | determinizations | hands (deals) | win rate [95% Wilson] | [95% over duplicate deals] "
        "| ratio to fair share | CPU s / decision |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['searcher']}` | {r['determinizations']} | {r['hands']:,} ({r['deals']:,}) "
            f"| {r['win_rate']:.1f}% [{r['wilson'][0]:.1f}, {r['wilson'][1]:.1f}] "
            f"| [{r['duplicate'][0]:.1f}, {r['duplicate'][1]:.1f}] | {r['ratio']:.2f} "
            f"| {r['cpu_seconds_per_decision']:.3f} |"
        )
    return "\n".join([*lines, "", source_note(rows)])


def read_all(name: str) -> list[dict]:
    """Every line of ``experiments/results/NAME`` (a file of rows, each its own measurement)."""
    return [json.loads(line) for line in (RESULTS / name).read_text().splitlines() if line.strip()]


@dataclass(frozen=True)
class Table:
    make: Callable[[], str]
    results: str
    experiment: str


def house_table(make: Callable[[list[dict]], str]) -> str:
    """A table of the house-rule ladder (its own code makes it), with its source line."""
    rows = read_all("house_ladder.jsonl")
    return "\n".join([make(rows), "", source_note(rows)])


def sprt_table(make: Callable[[list[dict]], str], names: tuple[str, ...]) -> str:
    """A table of experiments/sprt.py (its own code makes it) from the newest line of each
    name, with the source line of the lines whose names start with ``names``."""
    rows = list(read("sprt.jsonl", "name").values())
    return "\n".join([make(rows), "", source_note([r for r in rows if r["name"].startswith(names)])])


LADDERS = "experiments/ladders.py"
SPRT = "experiments/sprt.py"
HOUSE = "experiments/house_ladder.py"
TABLES = {
    "ladder-heuristics-2p": Table(lambda: leaderboard("heuristics_2p"), "ladders.jsonl", LADDERS),
    "head-to-head-heuristics-2p": Table(lambda: head_to_head("heuristics_2p"), "ladders.jsonl", LADDERS),
    "ladder-heuristics-4p": Table(lambda: leaderboard("heuristics_4p"), "ladders.jsonl", LADDERS),
    "ladder-search-2p": Table(
        lambda: leaderboard("search_2p", ("win", "points", "rating", "search")), "ladders.jsonl", LADDERS
    ),
    "ladder-demo-4p": Table(lambda: leaderboard("demo_4p", ("win", "rating")), "ladders.jsonl", LADDERS),
    "first-player": Table(first_player, "ladders.jsonl", LADDERS),
    "search-curve-2p": Table(lambda: search_curve("2p"), "search_curve.jsonl", "experiments/search_curve.py"),
    "search-curve-4p": Table(lambda: search_curve("4p"), "search_curve.jsonl", "experiments/search_curve.py"),
    "strength": Table(strength, "strength.jsonl", "experiments/strength.py"),
    "distilled": Table(distilled, "distilled.jsonl", "experiments/distill_colours.py"),
    "house-tactical": Table(lambda: house_table(house_ladder.tactical_table), "house_ladder.jsonl", HOUSE),
    "house-ladder-2p": Table(
        lambda: house_table(lambda rows: house_ladder.ladder_table(rows, 2)), "house_ladder.jsonl", HOUSE
    ),
    "house-ladder-4p": Table(
        lambda: house_table(lambda rows: house_ladder.ladder_table(rows, 4)), "house_ladder.jsonl", HOUSE
    ),
    "sprt-games": Table(lambda: sprt_table(sprt.games_table, ("pairs", "asn_")), "sprt.jsonl", SPRT),
    "sprt-matches": Table(lambda: sprt_table(sprt.matches_table, ("match_",)), "sprt.jsonl", SPRT),
    "sprt-ladder": Table(lambda: sprt_table(sprt.ladder_table, ("ladder_",)), "sprt.jsonl", SPRT),
}
"""Marker name -> how its table is made, from which result file, by which experiment."""

MARKED = re.compile(r"(<!-- experiment:([\w-]+) -->\n)(.*?)(<!-- /experiment:\2 -->)", re.S)


def marked(text: str) -> dict[str, str]:
    """Each marked table of a doc: name -> its text between the markers."""
    return {m.group(2): m.group(3) for m in MARKED.finditer(text)}


def regenerate(text: str) -> str:
    def fresh(m: re.Match[str]) -> str:
        if m.group(2) not in TABLES:
            raise KeyError(f"<!-- experiment:{m.group(2)} -->: no such table in experiments/tables.py")
        return m.group(1) + TABLES[m.group(2)].make() + "\n" + m.group(4)

    return MARKED.sub(fresh, text)


def stale() -> list[str]:
    """The docs whose marked tables differ from their result files."""
    return [str(path.relative_to(ROOT)) for path in DOCS if regenerate(path.read_text()) != path.read_text()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.tables", description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the marked tables")
    parser.add_argument("--check", action="store_true", help="exit 1 if a marked table is stale")
    args = parser.parse_args(argv)
    if args.write:
        for path in DOCS:
            path.write_text(regenerate(path.read_text()))
        return 0
    wrong = stale()
    for name in wrong:
        print(f"{name}: a marked table differs from its result file (python -m experiments.tables --write)")
    return 1 if wrong and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
