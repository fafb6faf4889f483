"""The report of ``uno bench`` (:mod:`uno_env.bench.speed`): the table on screen, the plot,
and the summary under the table (state per game, start-up, targets)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def fmt_rate(value) -> str:
    if value is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.2f}{unit}"
    return f"{value:.1f}"


def table(rows: list[dict], reference, cpu_reference=None) -> str:
    head = (
        f"{'what':54s} {'steps/s':>9s} {'spread':>17s} {'eps/s':>9s} {'steps/ep':>8s} {'x RLCard':>9s}"
        f" {'steps/cpu-s':>11s} {'x (cpu)':>8s}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        if "skipped" in row:
            lines.append(f"{row['name']:54s} skipped: {row['skipped']}")
            continue
        spread = f"{fmt_rate(row['steps_per_s_min'])}..{fmt_rate(row['steps_per_s_max'])}"
        ratio = f"{row['steps_per_s'] / reference:.1f}" if reference else "-"
        per_ep = f"{row['steps_per_episode']:.0f}" if row.get("steps_per_episode") else "-"
        cpu = row.get("steps_per_cpu_s")
        cpu_ratio = f"{cpu / cpu_reference:.1f}" if cpu and cpu_reference else "-"
        lines.append(
            f"{row['name']:54s} {fmt_rate(row['steps_per_s']):>9s} {spread:>17s} "
            f"{fmt_rate(row['episodes_per_s']):>9s} {per_ep:>8s} {ratio:>9s} {fmt_rate(cpu):>11s} {cpu_ratio:>8s}"
        )
    return "\n".join(lines)


def plot(report: dict, path: Path) -> None:
    """Decisions per second of every row (log scale, RLCard's in red, the ratio to it), and
    the vector env's rate against its batch size, serial and parallel."""
    import matplotlib  # plots only: uno bench loads it when it writes its plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # plots only

    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 6), gridspec_kw={"width_ratios": [3, 2]})
    plot_rates(left, [r for r in report["rows"] if "skipped" not in r], report.get("reference_steps_per_s"))
    plot_vector(right, report["vector"])
    fig.suptitle(report["title"], fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_rates(ax, rows: list[dict], reference: float | None) -> None:
    names = [r["name"] for r in rows]
    values = [r["steps_per_s"] for r in rows]
    errors = np.array(
        [
            [r["steps_per_s"] - r["steps_per_s_min"] for r in rows],
            [r["steps_per_s_max"] - r["steps_per_s"] for r in rows],
        ]
    )
    y = np.arange(len(rows))
    ax.barh(y, values, xerr=errors, color=["#c44" if r["group"] == "a" else "#48a" for r in rows])
    ax.set_yticks(y, names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("decisions per second (log)")
    if reference:
        for k, value in enumerate(values):
            ax.text(value, k, f"  {value / reference:.0f}x", va="center", fontsize=7)
    ax.set_title("random legal play (median, bars: min..max)")


def plot_vector(ax, vector: list[dict]) -> None:
    for mode, style in (("serial", "o-"), ("parallel", "s--")):
        points = [(r["num_envs"], r["steps_per_s"]) for r in vector if r["mode"] == mode]
        if points:
            ax.plot(*zip(*points), style, label=mode)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("games per batch (N)")
    ax.set_ylabel("decisions per second")
    ax.set_title("vector env (observation + mask per step)")
    ax.legend()


def summary_lines(report: dict, players: int) -> list[str]:
    """What is printed under the table: the state per game, the start-up times, the targets."""
    lines = []
    sb = report["state_bytes"][str(players)]
    lines.append(
        f"state per game ({players} players): engine {sb['engine_state']} B, vector env {sb['vector_env']} B "
        f"(+ observation {sb['observation']} B, mask {sb['mask']} B, final observations {sb['final_observations']} B)"
    )
    lines += startup_lines(report["startup"])
    lines.append("")
    lines += [target_line(t) for t in report["targets"]]
    return lines


def startup_lines(startup: dict) -> list[str]:
    if "skipped" in startup:
        return [f"start-up: skipped ({startup['skipped']})"]
    lines = []
    for label in ("cold", "cached", "first_use", "warm", "first_use_after_warm"):
        if label not in startup:
            continue
        entry = startup[label]
        if label == "warm":
            lines.append(f"start-up warm (uno warm --jobs 2, empty cache): wall {entry['wall_s']:.1f}s")
        elif "error" in entry:
            lines.append(f"start-up {label}: failed: {entry['error']}")
        else:
            stages = ", ".join(
                f"{k} {v:.2f}s" if isinstance(v, float) else f"{k} {v}" for k, v in entry["stages_s"].items()
            )
            lines.append(f"start-up {label}: wall {entry['wall_s']:.2f}s ({stages}, cumulative)")
    return lines


def target_line(t: dict) -> str:
    if t["value"] is None:
        return f"  [ n/a ] {t['target']}: not measured"
    mark = "met " if t["met"] else "MISS"
    cpu = f"; per CPU-second {t['cpu_value']:.3g}{t['unit']}" if t.get("cpu_value") else ""
    return f"  [{mark}] {t['target']}: {t['value']:.3g}{t['unit']} (goal {t['goal']:g}{t['unit']}{cpu})"
