"""How strong is a search over ``ppo``, and at what cost? Duplicate hands against ``ppo``, in one file.

    python -m experiments.search_curve --num-players 2 --determinizations 32 128 --deals 1000 --out runs/2p.jsonl
    python -m experiments.search_curve --num-players 2 --summary runs/2p.jsonl --plot curve.png
    python -m experiments.search_curve --smoke        # seconds (what the tests run)

For each budget of ``--determinizations`` the searcher (``--searcher`` with that budget; by
default ``ppo_search``, ``ismcts`` rolling out ``ppo`` at every seat) plays ``--deals`` deals against
``--opponent`` at every other seat. Every deal is played once per seat of the searcher
(per team with partners), the same cards each time: duplicate hands, as in bridge, so the
luck of the deal cancels in each deal's mean and the interval over deals is tighter than
Wilson's over hands (both are reported). A row per hand is appended to ``--out`` as it is
played (a stopped run keeps its hands; a run again with the same file plays only the
missing ones), with the searcher's CPU seconds per decision (the thread's own time: the
cost on an idle core, whatever else the machine runs).

The summary per searcher and budget: hands, win rate with its 95% Wilson interval, the
duplicate interval, the ratio to the fair share (1 / teams) and CPU seconds per decision:
the curve of strength against time. ``--summary`` takes the files of several searchers
(each row names its searcher); ``--plot`` draws a curve per searcher.

Record (docs/agents.md, "Search on top of ppo"):

Question: how much stronger than ``ppo`` is a search over ``ppo``'s rollouts, per CPU second?
Seeds: ``--num-players 2 --determinizations 32 128 512 --deals 2000`` (deals of seed 1, the
  default), with ``ppo_search`` and with ``--searcher ismcts:rollout=ppo:opponent_rollout=ppo``;
  the same at ``--num-players 4``
Machine and time: the project's 2-core machine; stopped when the session's time ran out (the
  totals: not recorded; the CPU seconds a decision are in the table)
Result: two players, 128 determinizations: 53.6% [51.4, 55.7] of 2,058 hands against ``ppo``
  ([52.0, 55.2] over duplicate deals), 0.093 s a decision; four players: no budget above the
  fair share
Commit: recorded in the docs at 9a1323f (2026-12-04); the tree measured: not recorded
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from uno_env.agents import hash_seed, make_agent
from uno_env.arena.notebook import mean_interval, rate
from uno_env.engine import Game
from uno_env.training.json_script import run_json_script
from uno_env.training.rules import make_game_of, teacher_seats


@dataclass
class Args:
    num_players: int = 2
    """players at the table"""
    rules: tuple[str, ...] = ()
    """other rule settings as KEY=VALUE (e.g. partners=true), as `uno tournament --set` takes them"""
    searcher: str = "ppo_search"
    """the searcher's spec, without its budget (e.g. ismcts:rollout=ppo:opponent_rollout=ppo for
    ismcts' own defaults of confidence and draw_inference)"""
    determinizations: tuple[int, ...] = (128,)
    """the budgets to measure (each is a point of the curve)"""
    opponent: str = "ppo"
    """the agent at every other seat"""
    deals: int = 500
    """deals per budget, each played once per seat (team) of the searcher"""
    seed: int = 1
    """seed of the deals and the agents"""
    out: str = ""
    """a JSON-lines file the hands are appended to ('': kept in memory only)"""
    summary: tuple[str, ...] = ()
    """summarise these files instead of playing"""
    plot: str = ""
    """with --summary: draw the curve into this image"""
    progress: bool = True
    """a progress bar over the hands"""


SMOKE = dict(determinizations=(4,), deals=2, progress=False)


class Timed:
    """An agent whose decisions' CPU seconds are counted."""

    def __init__(self, agent):
        self.agent, self.decisions, self.seconds = agent, 0, 0.0

    def __call__(self, observation, mask) -> int:
        started = time.thread_time()
        action = self.agent(observation, mask)
        self.seconds += time.thread_time() - started
        self.decisions += 1
        return action


def play_hand(game: Game, searcher, opponent, seats: tuple[int, ...], seed: int) -> dict:
    """One hand from deal ``seed``: the searcher at ``seats``, the opponent elsewhere."""
    timed = Timed(searcher)
    state = game.init(seed=seed)
    game.play(state, {s: (timed if s in seats else opponent) for s in range(game.num_players)})
    won = any(w in seats for w in game.winners(state))
    return {"won": won, "decisions": timed.decisions, "seconds": timed.seconds}


def play(args: Args) -> dict:
    if args.summary:
        return summarise(args)
    if args.deals < 1 or not args.determinizations or min(args.determinizations) < 1:
        raise ValueError("--deals and every --determinizations must be at least 1")
    game = make_game_of(args)
    done = {key(r) for r in read_rows([args.out])} if args.out else set()
    teams = game.config.num_teams
    # deal by deal, every budget on each: a stopped run has the same deals at every budget
    jobs = [(d, deal, k) for deal in range(args.deals) for d in args.determinizations for k in range(teams)]
    opponent = make_agent(args.opponent, game, seed=hash_seed(args.seed, 2))
    rows = []
    for budget, deal, k in tqdm(jobs, desc="hands", disable=not args.progress):
        seats = teacher_seats(game, k)
        row = dict(searcher=args.searcher, determinizations=budget, deal=deal, seats=list(seats))
        if key(row) in done:
            continue
        searcher = make_agent(f"{args.searcher}:determinizations={budget}", game, seed=hash_seed(args.seed, 4, deal, k))
        opponent.reset(hash_seed(args.seed, 5, deal, k))
        row |= {"num_players": game.num_players} | play_hand(
            game, searcher, opponent, seats, hash_seed(args.seed, 3, deal)
        )
        rows.append(row)
        if args.out:
            with open(args.out, "a") as f:
                f.write(json.dumps(row) + "\n")
    return {"args": asdict(args), "points": points(rows, teams)}


def key(row: dict) -> tuple:
    """What a hand of the curve is: the searcher, its budget, the deal and the searcher's seat."""
    return row["searcher"], row["determinizations"], row["deal"], row["seats"][0]


def read_rows(paths) -> list[dict]:
    rows = []
    for path in paths:
        if Path(path).exists():
            rows += [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return rows


def points(rows: list[dict], teams: int) -> list[dict]:
    """The curves: one point per searcher and budget (module docstring)."""
    curve = []
    for searcher, budget in sorted({(r["searcher"], r["determinizations"]) for r in rows}):
        mine = [r for r in rows if (r["searcher"], r["determinizations"]) == (searcher, budget)]
        wins = sum(r["won"] for r in mine)
        by_deal: dict[int, list[float]] = {}
        for r in mine:
            by_deal.setdefault(r["deal"], []).append(float(r["won"]))
        full = [np.mean(v) for v in by_deal.values() if len(v) == teams]  # deals played at every seat
        share, low, high = rate(wins, len(mine))
        duplicate = mean_interval(full)
        decisions = sum(r["decisions"] for r in mine)
        curve.append(
            {
                "searcher": searcher,
                "determinizations": budget,
                "hands": len(mine),
                "win_rate": [share, low, high],
                "duplicate": [len(full), *duplicate],
                "ratio": [x * teams for x in (share, low, high)],
                "seconds_per_decision": sum(r["seconds"] for r in mine) / max(decisions, 1),
            }
        )
    return curve


def summarise(args: Args) -> dict:
    rows = read_rows(args.summary)
    if not rows:
        raise ValueError(f"no hands in {', '.join(args.summary)}")
    game = make_game_of(args)
    curve = points([r for r in rows if r["num_players"] == game.num_players], game.config.num_teams)
    if args.plot:
        draw(curve, game.config.num_teams, args.plot)
    return {"files": list(args.summary), "points": curve}


def draw(curve: list[dict], teams: int, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for searcher in dict.fromkeys(p["searcher"] for p in curve):  # in order, without repeats
        line = [p for p in curve if p["searcher"] == searcher]
        seconds = [p["seconds_per_decision"] for p in line]
        mid = [p["duplicate"][1] for p in line]
        err = [[m - p["duplicate"][2] for m, p in zip(mid, line)], [p["duplicate"][3] - m for m, p in zip(mid, line)]]
        ax.errorbar(seconds, mid, yerr=err, marker="o", capsize=3, label=searcher)
        for p, x, y in zip(line, seconds, mid):
            ax.annotate(f"{p['determinizations']} ({p['hands']})", (x, y), textcoords="offset points", xytext=(5, -12))
    ax.axhline(1 / teams, color="grey", lw=0.8, label="fair share")
    ax.set_xscale("log")
    ax.set_xlabel("CPU seconds per decision (log)")
    ax.set_ylabel("win rate, 95% interval over duplicate deals")
    ax.set_title("searches over ppo against ppo (labels: determinizations (hands))", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    return run_json_script("search_curve", __doc__ or "", Args, SMOKE, play, argv)


if __name__ == "__main__":
    sys.exit(main())
