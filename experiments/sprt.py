"""Is my bot better? How many games ``uno match --sprt`` needs against a fixed-size test with the
same errors, and real runs of both workflows (docs/is_my_bot_better.md).

    python -m experiments.sprt --out experiments/results/sprt.jsonl   # every measurement (under a minute)
    python -m experiments.sprt --smoke                                 # seconds, a throwaway file

One JSON line per measurement (its ``name``), appended to ``--out``; the tables of
docs/is_my_bot_better.md are made from it by ``python -m experiments.tables --write``, the
figure ``docs/img/sprt_games.png`` by this script.

* ``pairs``: the shape of real pairs: the pentanomial of 4,000 duplicate deals of ``tactical``
  against ``keeper`` at two players (``run_match`` without a test, seed 0).
* ``asn_<elo>``: the SPRT of ``--sprt elo0=0,elo1=20`` (alpha = beta = 0.05) run on pairs drawn
  from that shape moved to a true difference of ``elo`` (fishtest's way: the distribution
  on the same five categories nearest the observed one, by maximum likelihood, with that
  expected score), :data:`RUNS` times: the games it needed (mean, median, 90th percentile)
  and how often it accepted H1, with its 95% interval. Beside it, the fixed-size test with
  the same errors: the pairs ``n`` for which a one-sided test of the mean pair score
  (normal approximation, the spread of each hypothesis' distribution) errs with alpha at
  elo0 and beta at elo1, and its error rates over as many simulated runs.
* ``match_*``: real ``uno match`` runs (each row's ``command`` plays it again).
* ``ladder_seven_o_4p``: a real ladder: five agents at four players under Seven-O, 4,000
  games (``uno ladder new/add/play/show``, the commands in its row).

Question: how many games does the sequential test need, against a fixed-size test with the
same errors, when the true difference is far from, between or at the hypotheses; and what do
the two workflows say about real agents (``tactical`` against ``tactical_v1`` under Seven-O)?
Seeds: 0 for the pairs, every match and the ladder; the simulation's generators seeded by the
index of the difference (1 + k for the SPRT, 100 + k for the fixed-size test).
Machine and time: the shared 2-core machine of 2026-12-06 (load about 2.4 at the start, other
jobs running), niced: 19 s in all (each row's ``seconds``: the simulation about 1 s per
difference, the matches a second or less each, the ladder 3 s).
Result: the fixed-size test with these errors needs 2,622 hands. At a true difference of 0 or
20 Elo the SPRT needed about half of that on average (1,364 and 1,285 hands), at -10 or 40
Elo a fifth to a quarter (740 and 493); between the hypotheses (10 Elo) its mean, 2,088, is
still below the fixed size, though over a tenth of its runs went past it (90th percentile
4,244). It accepted H1 in 4.9% [3.7, 6.4] of the runs at elo0 and in 94.7% [93.1, 95.9] at
elo1 (alpha = beta = 5%). Real matches: ``tactical`` is better than ``tactical_v1`` under
Seven-O at two players (H1 after 298 hands, +59 [+24, +95] Elo) and at four (H1 after 448,
+50 [+19, +80]); under stacking the two are within the bounds (H0 after 506, -5 [-25, +14]).
The ladder under Seven-O at four players ranks ``tactical`` first (1555 [1545, 1565]),
``random_play`` last.
Commit: each result line's ``commit``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from experiments.ladders import commit, machine
from uno_env.arena import LadderStore, add_entrant, play_ladder, run_match, standings
from uno_env.arena.ladder_report import public
from uno_env.arena.ratings import wilson_interval
from uno_env.arena.sprt import Hypotheses, crossings, score_of_elo, secular_root
from uno_env.engine import RuleConfig

ROOT = Path(__file__).resolve().parent.parent
FIGURE = ROOT / "docs" / "img" / "sprt_games.png"
TEST = Hypotheses(0.0, 20.0, 0.05, 0.05)
TRUE_ELO = (-10, 0, 5, 10, 15, 20, 25, 30, 40)
RUNS = 1000
HORIZON = 20_000
"""Pairs at which a simulated test is cut (counted undecided)."""
PAIRS_DEALS = 4000
MATCHES: dict[str, tuple[str, str, dict, int, str]] = {
    "match_random_play": ("tactical", "random_play", {}, 2, "elo0=0,elo1=50"),
    "match_itself": ("tactical", "tactical", {}, 2, "elo0=0,elo1=30"),
    "match_seven_o_2p": ("tactical", "tactical_v1", {"seven_o": True}, 2, "elo0=0,elo1=20"),
    "match_seven_o_4p": ("tactical", "tactical_v1", {"seven_o": True}, 4, "elo0=0,elo1=20"),
    "match_stacking_2p": ("tactical", "tactical_v1", {"stacking": "mixed"}, 2, "elo0=0,elo1=20"),
    "match_ppo_2p": ("ppo", "tactical", {}, 2, "elo0=0,elo1=20"),
}
"""name -> (A, B, settings, players, --sprt)."""
LADDER = ("random_play", "keeper", "tactical_v1", "tactical", "ppo")
LADDER_GAMES = 4000


def stamp(row: dict, start: float) -> dict:
    """A result line: the row and where it comes from."""
    return {
        **row,
        "seconds": round(time.perf_counter() - start, 1),
        "source": "measured by python -m experiments.sprt",
        "commit": commit(),
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
    }


def settings_text(settings: dict) -> str:
    return "".join(f" --set {k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in settings.items())


def pairs(deals: int) -> dict:
    start = time.perf_counter()
    summary = run_match(
        "tactical", "keeper", RuleConfig(num_players=2, episode="round"), None, max_games=2 * deals, seed=0
    )
    row = {"name": "pairs", "counts": summary["counts"], "elo": summary["elo"], "elo_interval": summary["elo_interval"]}
    row["command"] = (
        f"run_match('tactical', 'keeper', RuleConfig(num_players=2, episode='round'), None, max_games={2 * deals})"
    )
    return stamp(row, start)


def tilted(counts, elo: float) -> np.ndarray:
    """The distribution on the categories nearest ``counts`` (maximum likelihood) whose expected
    pair score is that of ``elo`` (fishtest's ``MLE_expected``)."""
    p = np.asarray(counts, dtype=np.float64) + 1e-3
    p /= p.sum()
    values = np.linspace(0.0, 1.0, len(p))
    a = values - float(score_of_elo(elo, 2))
    q = p / (1.0 + secular_root(a, p[None, :])[0] * a)
    return q / q.sum()


def fixed_pairs(counts) -> tuple[int, float]:
    """The pairs of the fixed-size one-sided test with TEST's errors, and its threshold on the
    mean pair score."""
    values = np.linspace(0.0, 1.0, len(counts))
    s0, s1 = (float(score_of_elo(e, 2)) for e in (TEST.elo0, TEST.elo1))
    sd0, sd1 = (math.sqrt(float(tilted(counts, e) @ (values - s) ** 2)) for e, s in ((TEST.elo0, s0), (TEST.elo1, s1)))
    z = statistics.NormalDist()
    za, zb = z.inv_cdf(1 - TEST.alpha), z.inv_cdf(1 - TEST.beta)
    n = math.ceil(((za * sd0 + zb * sd1) / (s1 - s0)) ** 2)
    return n, s0 + za * sd0 / math.sqrt(n)


def simulate(q: np.ndarray, runs: int, seed: int, block: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Pairs each test needed (HORIZON: undecided) and whether it accepted H1, for ``runs``
    tests on pairs drawn from ``q``."""
    rng = np.random.default_rng(seed)
    size = len(q)
    counts = np.zeros((runs, size), dtype=np.int64)
    needed = np.full(runs, HORIZON)
    h1 = np.zeros(runs, dtype=bool)
    alive = np.arange(runs)
    for start in range(0, HORIZON, block):
        draws = rng.choice(size, size=(len(alive), block), p=q)
        history = counts[alive, None, :] + np.cumsum(np.eye(size, dtype=np.int64)[draws], axis=1)
        first, values = crossings(history, TEST, 2)
        done = first >= 0
        needed[alive[done]] = start + first[done] + 1
        h1[alive[done]] = values[done, first[done]] >= TEST.upper
        counts[alive] = history[:, -1]
        alive = alive[~done]
        if not len(alive):
            break
    return needed, h1


def fixed_errors(q: np.ndarray, n: int, threshold: float, runs: int, seed: int) -> float:
    """How often the fixed-size test of ``n`` pairs accepts H1 on pairs drawn from ``q``."""
    values = np.linspace(0.0, 1.0, len(q))
    means = np.random.default_rng(seed).multinomial(n, q, size=runs) @ values / n
    return float((means >= threshold).mean())


def asn(counts, elo: float, index: int, runs: int) -> dict:
    start = time.perf_counter()
    q = tilted(counts, elo)
    needed, h1 = simulate(q, runs, seed=1 + index)
    n, threshold = fixed_pairs(counts)
    games = 2 * needed
    row = {
        "name": f"asn_{elo:g}",
        "true_elo": elo,
        "elo0": TEST.elo0,
        "elo1": TEST.elo1,
        "alpha": TEST.alpha,
        "beta": TEST.beta,
        "runs": runs,
        "mean_games": float(games.mean()),
        "median_games": float(np.median(games)),
        "p90_games": float(np.percentile(games, 90)),
        "undecided": int((needed >= HORIZON).sum()),
        "accept_h1": float(h1.mean()),
        "accept_h1_ci": list(wilson_interval(int(h1.sum()), runs)),
        "fixed_games": 2 * n,
        "fixed_accept_h1": fixed_errors(q, n, threshold, runs, seed=100 + index),
        "command": f"python -m experiments.sprt (simulation: pairs of tactical vs keeper moved to {elo:g} Elo)",
    }
    return stamp(row, start)


def match(name: str, max_games: int = 100_000) -> dict:
    a, b, settings, players, sprt = MATCHES[name]
    start = time.perf_counter()
    config = RuleConfig(num_players=players, episode="round", **settings)
    summary = run_match(a, b, config, Hypotheses(**parse(sprt)), max_games=max_games, seed=0)
    command = f"uno match {a} {b} --players {players}{settings_text(settings)} --sprt {sprt}"
    keep = ("a", "b", "result", "games", "deals", "llr", "bounds", "elo", "elo_interval", "counts", "win_share")
    return stamp({"name": name, "command": command, "summary": {k: summary[k] for k in keep}}, start)


def parse(sprt: str) -> dict:
    return {k: float(v) for k, v in (part.split("=") for part in sprt.split(","))}


def ladder(games: int) -> dict:
    start = time.perf_counter()
    config = RuleConfig(num_players=4, episode="round", seven_o=True)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "seven_o.db"
        LadderStore.create(path, config, seed=0).close()
        store = LadderStore.open(path)
        for spec in LADDER:
            add_entrant(store, spec)
        store.close()
        play_ladder(path, games=games)
        store = LadderStore.open(path)
        result = public(standings(store))
        store.close()
    commands = [
        "uno ladder new seven_o.db --players 4 --set seven_o=true",
        *(f"uno ladder add seven_o.db {spec}" for spec in LADDER),
        f"uno ladder play seven_o.db --games {games}",
        "uno ladder show seven_o.db --json",
    ]
    keep = ("name", "games", "wins", "win_rate", "win_rate_interval", "rating", "interval")
    entrants = [{k: e[k] for k in keep} for e in result["entrants"]]
    row = {"name": "ladder_seven_o_4p", "command": " && ".join(commands), "games": result["games"]}
    return stamp({**row, "entrants": entrants, "head_to_head": result["head_to_head"]}, start)


def games_table(rows: list[dict]) -> str:
    """The SPRT's games against the fixed-size test's, by true difference (the ``asn_*`` rows)."""
    rows = sorted((r for r in rows if r["name"].startswith("asn_")), key=lambda r: r["true_elo"])
    lines = [
        "| true difference | SPRT: mean games | median | 90th percentile | accepts H1 [95%] "
        "| fixed-size test: games | accepts H1 |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = r["accept_h1_ci"]
        lines.append(
            f"| {r['true_elo']:+g} Elo | {r['mean_games']:,.0f} | {r['median_games']:,.0f} | {r['p90_games']:,.0f} "
            f"| {100 * r['accept_h1']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] | {r['fixed_games']:,} "
            f"| {100 * r['fixed_accept_h1']:.1f}% |"
        )
    return "\n".join(lines)


def matches_table(rows: list[dict]) -> str:
    """The real matches: the command, the decision, the games, the Elo estimate."""
    lines = ["| command | decision | games | LLR | Elo [95%] |", "|---|---|---|---|---|"]
    for r in rows:
        if r["name"].startswith("match_"):
            s = r["summary"]
            lo, hi = s["elo_interval"]
            lines.append(
                f"| `{r['command']}` | {s['result']} | {s['games']:,} | {s['llr']:.2f} "
                f"| {s['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}] |"
            )
    return "\n".join(lines)


def ladder_table(rows: list[dict]) -> str:
    """The real ladder's standings, best first."""
    row = next(r for r in rows if r["name"] == "ladder_seven_o_4p")
    lines = [f"`{row['command'].split(' && ')[-2]}` ({row['games']:,} games in all), then `uno ladder show`:", ""]
    lines += ["| entrant | games | win rate [95%] | rating [95%] |", "|---|---|---|---|"]
    for e in row["entrants"]:
        lo, hi = e["win_rate_interval"]
        rlo, rhi = e["interval"]
        lines.append(
            f"| `{e['name']}` | {e['games']:,} | {e['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] "
            f"| {e['rating']:.0f} [{rlo:.0f}, {rhi:.0f}] |"
        )
    return "\n".join(lines)


def figure(rows: list[dict], path: Path) -> None:
    """The games the SPRT needed (mean, median, 10% of runs above the top of the band) and how
    often it accepted H1, against the fixed-size test, by true difference."""
    import matplotlib  # plots only

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    rows = sorted(rows, key=lambda r: r["true_elo"])
    elo = [r["true_elo"] for r in rows]
    fig, (ax, oc) = plt.subplots(1, 2, figsize=(11, 4))
    ax.fill_between(
        elo,
        [r["median_games"] for r in rows],
        [r["p90_games"] for r in rows],
        alpha=0.2,
        label="median to 90th percentile",
    )
    ax.plot(elo, [r["mean_games"] for r in rows], "o-", label="SPRT, mean")
    ax.axhline(
        rows[0]["fixed_games"], color="tab:red", ls="--", label=f"fixed-size test ({rows[0]['fixed_games']:,} games)"
    )
    for x in (TEST.elo0, TEST.elo1):
        ax.axvline(x, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("true difference (Elo)")
    ax.set_ylabel("games (hands)")
    ax.set_title(f"games to a decision, --sprt elo0={TEST.elo0:g},elo1={TEST.elo1:g}")
    ax.legend(fontsize=8)
    lo = [r["accept_h1"] - r["accept_h1_ci"][0] for r in rows]
    hi = [r["accept_h1_ci"][1] - r["accept_h1"] for r in rows]
    oc.errorbar(elo, [r["accept_h1"] for r in rows], yerr=[lo, hi], fmt="o-", capsize=3, label="SPRT")
    oc.plot(elo, [r["fixed_accept_h1"] for r in rows], "s--", color="tab:red", label="fixed-size test")
    oc.axhline(TEST.alpha, color="grey", lw=0.8, ls=":")
    oc.axhline(1 - TEST.beta, color="grey", lw=0.8, ls=":")
    oc.set_xlabel("true difference (Elo)")
    oc.set_ylabel("P(accept H1)")
    oc.set_title("how often each accepts H1 (95% intervals)")
    oc.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.sprt", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None, help="append the result lines here")
    parser.add_argument("--smoke", action="store_true", help="a few runs and games each, to a throwaway file")
    args = parser.parse_args(argv)
    if args.out is None and not args.smoke:
        parser.error("give --out FILE (or --smoke)")
    runs = 20 if args.smoke else RUNS
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "smoke.jsonl" if args.smoke else args.out
        shape = pairs(100 if args.smoke else PAIRS_DEALS)
        rows = [shape] + [asn(shape["counts"], elo, k, runs) for k, elo in enumerate(TRUE_ELO)]
        names = [n for n in MATCHES if not (args.smoke and MATCHES[n][0] == "ppo")]  # the network: seconds to load
        rows += [match(name, 200 if args.smoke else 100_000) for name in names]
        rows.append(ladder(60 if args.smoke else LADDER_GAMES))
        with out.open("a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
                print(row["name"], {k: row[k] for k in ("seconds", "command")}, flush=True)
        figure([r for r in rows if r["name"].startswith("asn_")], Path(folder) / "smoke.png" if args.smoke else FIGURE)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
