"""Plot the learning curve of one training run, or of runs that continued one another.

    python -m uno_env.training.plot runs/A/progress.csv --out curve.png
    python -m uno_env.training.plot runs/A/progress.csv:125 runs/B/progress.csv --out curve.png

``PATH:LAST`` keeps a run's rows up to update LAST (the checkpoint the next run
started from with ``uno train --init-from``); the steps of the stages add up.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from uno_env.training.ppo import plot_curve


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
