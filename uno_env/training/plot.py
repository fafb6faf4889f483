"""Plot the learning curve of one training run, or of runs that continued one another.

    python -m uno_env.training.plot runs/A/progress.csv --out curve.png
    python -m uno_env.training.plot runs/A/progress.csv:125 runs/B/progress.csv --out curve.png

``PATH:LAST`` keeps a run's rows up to update LAST (the checkpoint the next run
started from with ``uno train --init-from``); the steps of the stages add up.
:func:`plot_curve` is what the training scripts call at the end of a run.
"""

from __future__ import annotations

import argparse
import csv
import pathlib
import sys
from typing import Any


def read_stages(stages) -> tuple[list[dict[str, Any]], list[int]]:
    """The rows of the stages' ``progress.csv`` files, steps added up, and the step each stage starts at."""
    rows: list[dict[str, Any]] = []
    offset, starts = 0, []
    for path, last in stages:
        with open(path) as f:
            part = [r for r in csv.DictReader(f) if last is None or int(r["update"]) <= last]
        starts.append(offset)
        for r in part:
            rows.append({**r, "global_step": int(r["global_step"]) + offset})
        offset = rows[-1]["global_step"] if rows else offset
    return rows, starts


def plot_curve(
    stages,
    png_path: pathlib.Path,
    title: str,
    xlabel: str = "learner decisions (env steps of training)",
    fair_share: float = 0.5,
) -> None:
    """Evaluation win rates (95% Wilson bands) against training decisions. ``stages``: one
    ``progress.csv`` path, or a list of (path, last update) of runs that continued one
    another (``--init-from``): their steps add up, a dotted line marks each new stage.
    A dashed line marks the learner's fair share (one seat's, or one team's)."""
    import matplotlib  # plots only: the training scripts load it at the end of a run

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    if isinstance(stages, (str, pathlib.Path)):
        stages = [(stages, None)]
    rows, starts = read_stages(stages)
    fig, ax = plt.subplots(figsize=(7, 4))
    keys = [k for k in (rows[0] if rows else {}) if k.startswith("eval_") and k.endswith("_win_rate")]
    for key in keys:
        plot_win_rate(ax, [r for r in rows if r.get(key)], key)
    for start in starts[1:]:
        ax.axvline(start, color="grey", lw=0.8, ls=":")
    ax.axhline(fair_share, color="grey", lw=0.8, ls="--", label="fair share")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate of the greedy policy")
    ax.set_title(title, fontsize=9)
    ax.set_ylim(0, 1)
    ax.legend(title="against")
    fig.tight_layout()
    fig.savefig(png_path, dpi=110)
    plt.close(fig)


def plot_win_rate(ax, rows: list[dict], key: str) -> None:
    """One opponent's evaluations (``eval_<opponent>_win_rate``) and their 95% band."""
    if not rows:
        return
    x = [r["global_step"] for r in rows]
    (line,) = ax.plot(x, [float(r[key]) for r in rows], marker="o", ms=3, label=key[5:-9])
    lo = [float(r[key.replace("_win_rate", "_lo")]) for r in rows]
    hi = [float(r[key.replace("_win_rate", "_hi")]) for r in rows]
    ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)


def parse_stage(text: str) -> tuple[pathlib.Path, int | None]:
    path, sep, last = text.rpartition(":")
    if sep and last.isdigit():
        return pathlib.Path(path), int(last)
    return pathlib.Path(text), None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m uno_env.training.plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("stages", nargs="+", help="progress.csv of each run, optionally PATH:LAST_UPDATE")
    parser.add_argument("--out", type=pathlib.Path, required=True, help="PNG to write")
    parser.add_argument("--title", default="masked PPO on two-player UNO hands", help="title of the plot")
    parser.add_argument(
        "--fair-share", type=float, default=0.5, help="the learner's fair share, a dashed line (default 0.5)"
    )
    args = parser.parse_args(argv)
    stages = [parse_stage(s) for s in args.stages]
    for path, _ in stages:
        if not path.is_file():
            print(f"plot_training: error: no file {path}", file=sys.stderr)
            return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot_curve(stages, args.out, args.title, fair_share=args.fair_share)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
