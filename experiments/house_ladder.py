"""The agents under the house rules: one seat of an agent against a field of another, for each
house rule alone and all five together, at two and four players (docs/agents.md, "The
ladder under the house rules").

    python -m experiments.house_ladder --out house_ladder.jsonl            # play what the file lacks
    python -m experiments.house_ladder --out house_ladder.jsonl --table    # its markdown tables
    python -m experiments.house_ladder --out smoke.jsonl --hands-scale 0.01 --players 2 --settings seven_o

Two measurements, each a tournament of the ``field`` schedule (``uno tournament --agents
AGENT,FIELD --players N --schedule field --episode round --set ...``, seed 49): the agent in
one seat (every seat equally often), the field agent in the others; the result is the
agent's win rate, the fair share ``1 / players`` and their ratio, with 95% Wilson intervals.

* ``tactical`` against ``tactical_v1`` (the tactical policy before it weighed the house
  rules), with every house rule off too: does weighing them pay?
* the ladder: ``ppo`` (under Seven-O the networks that know the house rules), ``ppo`` before it
  knew them (:data:`BLIND_PPO`), ``tactical_v1``, ``ismcts`` and ``ppo_search`` against ``tactical``.

Each agent plays :data:`HANDS` hands per setting and table (times ``--hands-scale``): the
compiled ones 4,000 (seconds), ``ismcts`` and ``ppo_search`` far fewer (their search takes
a second or more per hand). A row per tournament is appended to ``--out`` as it ends; a run
again with the same file plays only the missing ones. The tables of docs/agents.md are made
from ``experiments/results/house_ladder.jsonl`` by ``python -m experiments.tables --write``.

Question: does ``tactical`` gain by weighing the house rules (against ``tactical_v1``), and
where do ``ppo`` (trained without them), ``ismcts`` and ``ppo_search`` stand against it
under each house rule?
Seeds: 49 for every tournament (each row's ``command`` plays its hands again).
Machine and time: the shared 2-core machine of 2026-12-05 (load about 8 to 11, other jobs
running): the compiled agents' cells seconds each, the 24 search cells about 1,700 s together.
Result: ``tactical`` against ``tactical_v1``: 1.22 [1.19, 1.25] of the fair share at two players
and 1.17 [1.12, 1.23] at four under Seven-O, 1.28 and 1.24 with all five rules, level (0.97 to
1.01, intervals around 1) under each other rule and with the rules off.
Commit: each result line's ``commit`` (527d069 for the rows of 2026-12-05: the policies as
merged; the rows of ``ppo`` and of ``ppo`` before it knew the house rules, 2026-12-06: ``ppo``
under Seven-O 1.17 and 0.99 of the fair share at two and four players, 1.37 and 1.01 with all
five rules).
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path

from experiments.ladders import commit, machine
from uno_env.arena import run_tournament
from uno_env.engine import RuleConfig

SETTINGS = {
    "off": {},
    "stacking": {"stacking": "mixed"},
    "seven_o": {"seven_o": True},
    "jump_in": {"jump_in": True},
    "draw_until_playable": {"draw_until_playable": True},
    "force_play": {"force_play": True},
    "all": {"stacking": "mixed", "seven_o": True, "jump_in": True, "draw_until_playable": True, "force_play": True},
}
"""The rule settings by name (stacking: ``mixed``); ``off`` only for the first measurement."""
BLIND_PPO = "ppo:weights=uno_env/data/ppo_{players}p.npz"
"""``ppo`` before it knew the house rules: the shipped network of the table, which ``ppo`` plays
with every house rule off (``{players}``: the table's size)."""
HANDS = {"tactical": 4000, "ppo": 4000, BLIND_PPO: 4000, "tactical_v1": 4000, "ismcts": 48, "ppo_search": 24}
"""Hands per setting and table for each agent in the one seat."""
LADDER = ("ppo", BLIND_PPO, "tactical_v1", "ismcts", "ppo_search")
SLOW = ("ismcts", "ppo_search")
SEED = 49
PLAYERS = (2, 4)


def jobs(players, settings):
    """(agent, field, setting, players) of every tournament: the compiled agents first, then
    the searches a setting at a time (all the rules first), so that a run stopped early has
    every agent under the settings it reached."""
    out = [("tactical", "tactical_v1", s, n) for n in players for s in settings]
    fast = [a for a in LADDER if a not in SLOW]
    out += [(a, "tactical", s, n) for a in fast for n in players for s in settings if s != "off"]
    ordered = sorted((s for s in settings if s != "off"), key=lambda s: s != "all")
    out += [(a, "tactical", s, n) for s in ordered for n in players for a in SLOW]
    return out


def play(agent, field, setting, players, hands):
    """One field tournament: the row of the results file (``agent`` as :data:`LADDER` names it;
    the row's command names it at its table)."""
    config = RuleConfig(num_players=players, episode="round", **SETTINGS[setting])
    start = time.perf_counter()
    summary, _, _, _ = run_tournament(
        [agent.format(players=players), field], config, hands, seed=SEED, schedule="field", workers=1, bootstrap=0
    )
    result = summary["field"][field]
    return {
        "agent": agent,
        "field": field,
        "setting": setting,
        "players": players,
        "hands": result["games"],
        "wins": result["wins"],
        "win_rate": result["win_rate"],
        "win_rate_ci": result["win_rate_ci"],
        "ratio": result["ratio"],
        "ratio_ci": result["ratio_ci"],
        "seconds": round(time.perf_counter() - start, 1),
        "command": command(agent.format(players=players), field, setting, players, result["games"]),
        "source": "measured by python -m experiments.house_ladder",
        "commit": commit(),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
    }


def command(agent, field, setting, players, hands, seed=SEED):
    """The ``uno tournament`` command that plays the same hands."""
    sets = " ".join(f"--set {k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in SETTINGS[setting].items())
    return (
        f"uno tournament --agents {agent},{field} --players {players} --schedule field --episode round "
        f"--games {hands} --seed {seed} {sets}".strip()
    )


def read_rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cell(row):
    """Ratio to the fair share [95% interval]."""
    if row is None:
        return "-"
    lo, hi = row["ratio_ci"]
    return f"{row['ratio']:.2f} [{lo:.2f}, {hi:.2f}]"


def rate_cell(row):
    """Win rate [95% interval] (ratio to the fair share)."""
    if row is None:
        return "-"
    lo, hi = row["win_rate_ci"]
    return f"{100 * row['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] ({row['ratio']:.2f})"


def found_rows(rows: list[dict]) -> dict[tuple, dict]:
    return {(r["agent"], r["field"], r["setting"], r["players"]): r for r in rows}


def tactical_table(rows: list[dict]) -> str:
    """``tactical`` (one seat) against ``tactical_v1``: a row per setting, a column per table size."""
    found = found_rows(rows)
    players = sorted({r["players"] for r in rows})
    lines = ["| setting | " + " | ".join(f"{n} players" for n in players) + " |", "|---" * (len(players) + 1) + "|"]
    for s in SETTINGS:
        if any(("tactical", "tactical_v1", s, n) in found for n in players):
            row = [rate_cell(found.get(("tactical", "tactical_v1", s, n))) for n in players]
            lines.append(f"| {s} | " + " | ".join(row) + " |")
    return "\n".join(lines)


def ladder_table(rows: list[dict], players: int) -> str:
    """Each agent in one seat against ``tactical``: ratio to the fair share [95%] (hands)."""
    found = found_rows(rows)
    settings = [s for s in SETTINGS if s != "off"]
    lines = ["| agent | " + " | ".join(settings) + " |", "|---" * (len(settings) + 1) + "|"]
    for a in LADDER:
        row = [found.get((a, "tactical", s, players)) for s in settings]
        if any(row):
            hands = sorted({r["hands"] for r in row if r})
            name = "`ppo` before it knew the house rules" if a == BLIND_PPO else f"`{a}`"
            lines.append(f"| {name} ({', '.join(map(str, hands))}) | " + " | ".join(cell(r) for r in row) + " |")
    return "\n".join(lines)


def tables(rows: list[dict]) -> str:
    """The markdown tables of the rows, with their titles (what ``--table`` prints)."""
    text = ["`tactical` (one seat) against `tactical_v1`: win rate [95%] (ratio to the fair share)", ""]
    text.append(tactical_table(rows))
    for n in sorted({r["players"] for r in rows}):
        text += ["", f"{n} players, one seat against `tactical`: ratio to the fair share [95%] (hands)", ""]
        text.append(ladder_table(rows, n))
    return "\n".join(text)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="results, one JSON line per tournament")
    parser.add_argument("--table", action="store_true", help="print the markdown tables of --out and stop")
    parser.add_argument("--players", type=int, nargs="+", default=list(PLAYERS))
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--hands-scale", type=float, default=1.0, help="multiply every agent's hands (a smoke run)")
    args = parser.parse_args(argv)
    if not args.table:
        done = {(r["agent"], r["field"], r["setting"], r["players"]) for r in read_rows(args.out)}
        for agent, field, setting, players in jobs(args.players, args.settings):
            if (agent, field, setting, players) in done:
                continue
            hands = max(players, round(HANDS[agent] * args.hands_scale))
            row = play(agent, field, setting, players, hands)
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{agent} vs {field}, {setting}, {players} players: {cell(row)} ({row['hands']} hands)", flush=True)
    print(tables(read_rows(args.out)))


if __name__ == "__main__":
    main()
