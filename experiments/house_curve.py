"""The learning curves of the networks that know the house rules on common hands: each line of
training (stages that continued one another) judged at its evaluated policies on the same hands.

    python -m experiments.house_curve --line "A=runs/house4p:240,runs/house4p_s2:400,runs/house4p_s3" \\
        --line "B=runs/house4p:240,runs/house4p_s4" --out curve.jsonl --plot curve.png
    python -m experiments.house_curve --out curve.jsonl --plot curve.png    # plot what the file holds

A line is ``NAME=STAGE,STAGE,...``, each stage a run folder (``runs/NAME``, with its
``progress.csv`` and ``policies/``) and optionally ``:LAST``, the update the next stage started
from. Every ``--every``-th update's exported policy plays ``--hands`` seat-rotated hands in one
seat against ``tactical`` in the others (the ``field`` schedule, ``--seed``), under
``--setting``: the same hands for every policy, so that the curves of the lines compare. The
runs' own evaluations use a hand set per run seed (1,000 hands), which is why their levels
differ by more than their intervals. A row per policy is appended to ``--out`` as it ends; a run
again with the same file plays only the missing ones. ``--plot`` draws the win rate (95% band)
by learner decisions, the fair share and the issue's mark (1.05x at four players, 1.15x at two).

Question: do the runs' curves under Seven-O at four players flatten below the mark of 1.05x the
  fair share against `tactical`, whichever line of stages they follow?
Seeds: ``--seed 5`` (2,000 hands a policy, the hands the soups were chosen on)
Machine and time: the project's 2-core machine beside the training: about 20 s a policy at four
  players
Result: experiments/results/house_curve_4p.jsonl, docs/img/house_curve_4p.png;
  docs/training.md, "The networks that know the house rules"
Commit: each row's ``commit``
"""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import time
from pathlib import Path
from typing import Any

from experiments.house_ladder import SETTINGS, command
from experiments.ladders import commit, machine
from uno_env.arena import run_tournament
from uno_env.engine import RuleConfig

MARKS = {2: 1.15, 4: 1.05}
"""The issue's mark for Seven-O and all five house rules, as a ratio to the fair share."""


def parse_line(text: str) -> tuple[str, list[tuple[Path, int | None]]]:
    """``"A=runs/x:240,runs/y"`` -> ("A", [(runs/x, 240), (runs/y, None)]); ValueError on a bad one."""
    name, sep, stages = text.partition("=")
    if not sep or not name or not stages:
        raise ValueError(f"--line {text!r}: expected NAME=RUN[:LAST],RUN[:LAST],...")
    out: list[tuple[Path, int | None]] = []
    for stage in stages.split(","):
        path, colon, last = stage.rpartition(":")
        out.append((Path(path), int(last)) if colon and last.isdigit() else (Path(stage), None))
    return name, out


def policies(stages: list[tuple[Path, int | None]], every: int) -> list[dict]:
    """Every ``every``-th evaluated policy of the line: its stage, update, file and the learner
    decisions of the line up to it (the stages' steps added up)."""
    found, offset = [], 0
    for k, (folder, last) in enumerate(stages):
        with open(folder / "progress.csv") as f:
            steps = {int(r["update"]): int(r["global_step"]) for r in csv.DictReader(f)}
        kept = {u: s for u, s in steps.items() if last is None or u <= last}
        for update in sorted(kept):
            path = folder / "policies" / f"policy_{update:05d}.npz"
            if update % every == 0 and path.exists():
                found.append({"stage": k, "run": folder.name, "update": update, "decisions": offset + kept[update]})
                found[-1]["policy"] = str(path)
        offset += kept[max(kept)] if kept else 0
    return found


def rules_of(setting: str) -> dict[str, Any]:
    """The house rules of a setting of :data:`experiments.house_ladder.SETTINGS`."""
    rules: dict[str, Any] = SETTINGS[setting]  # type: ignore[assignment]  # its values differ in type
    return rules


def judge(policy: str, players: int, setting: str, hands: int, seed: int) -> dict:
    """One policy's seat against ``tactical``: win rate, its 95% interval and ratio to the fair share."""
    config = RuleConfig(num_players=players, episode="round", **rules_of(setting))
    summary, _, _, _ = run_tournament(
        [f"ppo:weights={policy}", "tactical"], config, hands, seed=seed, schedule="field", workers=1, bootstrap=0
    )
    cell = summary["field"]["tactical"]
    return {"win_rate": cell["win_rate"], "ci": cell["win_rate_ci"], "ratio": cell["ratio"], "hands": cell["games"]}


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def own_part(rows: list[dict], drawn_before: set[tuple[str, int]]) -> list[dict]:
    """A line's rows from the last one an earlier line drew (the stage it grew from) on: the
    stages lines share are drawn once."""
    shared = [k for k, r in enumerate(rows) if (r["run"], r["update"]) in drawn_before]
    return rows[shared[-1] :] if shared else rows


def plot(rows: list[dict], players: int, setting: str, png: Path) -> None:
    """Win rate by learner decisions, a line per training line, with the fair share and the mark."""
    import matplotlib  # plots only

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    fair = 1 / players
    fig, ax = plt.subplots(figsize=(7, 4))
    drawn_before: set[tuple[str, int]] = set()
    for name in sorted({r["line"] for r in rows}):
        part = own_part(sorted((r for r in rows if r["line"] == name), key=lambda r: r["decisions"]), drawn_before)
        drawn_before |= {(r["run"], r["update"]) for r in part}
        x = [r["decisions"] / 1e6 for r in part]
        (drawn,) = ax.plot(x, [r["win_rate"] for r in part], marker="o", ms=3, label=f"{name}: {part[-1]['path']}")
        ax.fill_between(x, [r["ci"][0] for r in part], [r["ci"][1] for r in part], color=drawn.get_color(), alpha=0.15)
    ax.axhline(fair, color="grey", lw=0.8, ls="--", label="fair share")
    ax.axhline(fair * MARKS[players], color="black", lw=0.8, ls=":", label=f"mark ({MARKS[players]}x)")
    hands = sorted({r["hands"] for r in rows})
    ax.set_xlabel("learner decisions (millions, the line's stages added up)")
    ax.set_ylabel("win rate against tactical")
    ax.set_title(f"{players} players, {setting}: one seat against tactical, the same {hands[0]} hands", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.house_curve", description=__doc__.split("\n\n")[0])
    parser.add_argument("--line", action="append", default=[], help="NAME=RUN[:LAST],RUN[:LAST],... (repeatable)")
    parser.add_argument("--out", type=Path, required=True, help="results, one JSON line per policy")
    parser.add_argument("--plot", type=Path, help="PNG of the curves in --out")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--setting", default="seven_o", choices=list(SETTINGS))
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--every", type=int, default=100, help="judge every EVERY-th update's policy")
    args = parser.parse_args(argv)
    try:
        lines = [parse_line(text) for text in args.line]
    except ValueError as err:
        parser.error(str(err))
    done = {(r["line"], r["run"], r["update"]) for r in read_rows(args.out)}
    for name, stages in lines:
        path = " > ".join(folder.name for folder, _ in stages)
        for p in policies(stages, args.every):
            if (name, p["run"], p["update"]) in done:
                continue
            start = time.perf_counter()
            row = {"line": name, "path": path, **p, "players": args.players, "setting": args.setting}
            row.update(judge(p["policy"], args.players, args.setting, args.hands, args.seed), seed=args.seed)
            row.update(
                command=command(
                    f"ppo:weights={p['policy']}", "tactical", args.setting, args.players, args.hands, args.seed
                ),
                source="measured by python -m experiments.house_curve",
                seconds=round(time.perf_counter() - start, 1),
                commit=commit(),
                date=datetime.date.today().isoformat(),
                machine=machine(),
            )
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"{name} {p['run']} update {p['update']}: {row['win_rate']:.3f} ({row['ratio']:.2f}x)", flush=True)
    if args.plot:
        rows = [r for r in read_rows(args.out) if r["players"] == args.players and r["setting"] == args.setting]
        plot(rows, args.players, args.setting, args.plot)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
