"""The targets of ``uno bench`` (the speed issues' goals) and how a report is judged against
them: speeds as ratios to RLCard's measured in the same run (wall and CPU time), the state
per game, the start-up times and the compiled keeper's tournament hands per second."""

from __future__ import annotations

TARGETS = {  # the speed issues' targets (the second round's where it raised them)
    "pettingzoo_ratio": 5.0,
    "vector_ratio": 100.0,  # at every N >= 1024
    "vector_growth": 0.95,  # throughput at each N over the one at the size before: does not fall (5% noise)
    "kernel_policy_ratio": 200.0,  # random at every seat
    "kernel_tactical_ratio": 50.0,
    "state_bytes": 1024,
    "cold_start_s": 30.0,
    "cached_start_s": 2.0,
    "first_step_s": 20.0,  # a newcomer's env.reset + first step, empty cache
    "first_use_s": 20.0,  # a newcomer's first env step and the demo's tournament, empty cache
    "first_use_after_warm_s": 20.0,  # the same after make's install step (uno warm)
    "heuristic_hands_per_s": 100_000,
}


class Judgement:
    """The targets judged so far, and the rows of the report they are judged on."""

    def __init__(self, report: dict):
        self.report = report
        self.reference = report.get("reference_steps_per_s")
        self.cpu_reference = report.get("reference_steps_per_cpu_s")
        self.by_group: dict[str, list[dict]] = {}
        for row in report["rows"]:
            if "skipped" not in row:
                self.by_group.setdefault(row["group"], []).append(row)
        self.out: list[dict] = []

    def add(self, name, value, goal, better="higher", unit="", cpu_value=None) -> None:
        if value is None:
            self.out.append({"target": name, "goal": goal, "value": None, "met": None})
            return
        met = value >= goal if better == "higher" else value <= goal
        self.out.append(
            {"target": name, "goal": goal, "value": value, "met": bool(met), "unit": unit, "cpu_value": cpu_value}
        )

    def ratio(self, group, pick=lambda r: True, key="steps_per_s", ref=None):
        """The best rate of the group's rows that ``pick`` takes, over the reference (RLCard's)."""
        ref = self.reference if ref is None else ref
        rows = [r for r in self.by_group.get(group, []) if pick(r) and r.get(key)]
        if not rows or not ref:
            return None
        return max(r[key] for r in rows) / ref

    def cpu_ratio(self, group, pick=lambda r: True):
        """:meth:`ratio` per second of CPU time."""
        return self.ratio(group, pick, "steps_per_cpu_s", self.cpu_reference) if self.cpu_reference else None


def targets(report: dict) -> list[dict]:
    """Each target of :data:`TARGETS` judged on ``report``: its goal, the value measured
    (None: not measured), whether it is met, and the value per second of CPU time."""
    judged = Judgement(report)
    judged.add(
        "PettingZoo env steps/s vs RLCard",
        judged.ratio("b"),
        TARGETS["pettingzoo_ratio"],
        unit="x",
        cpu_value=judged.cpu_ratio("b"),
    )
    vector_targets(judged)
    for policy, goal in (("random", "kernel_policy_ratio"), ("tactical", "kernel_tactical_ratio")):

        def played(r, policy=policy):
            return r.get("policy") == policy

        judged.add(
            f"compiled {policy} policy in the kernel vs RLCard",
            judged.ratio("e", played),
            TARGETS[goal],
            unit="x",
            cpu_value=judged.cpu_ratio("e", played),
        )
    players = report["settings"]["players"]
    judged.add(
        f"state bytes per game in the vector env ({players} players)",
        report["state_bytes"][str(players)]["vector_env"],
        TARGETS["state_bytes"],
        better="lower",
        unit="B",
    )
    startup_targets(judged, report.get("startup", {}))
    keeper = [r for r in judged.by_group.get("e", []) if r.get("policy") == "keeper"]
    judged.add(
        "tournament hands/s of the compiled keeper",
        keeper[0]["episodes_per_s"] if keeper else None,
        TARGETS["heuristic_hands_per_s"],
        unit="hands/s",
    )
    return judged.out


def vector_targets(judged: Judgement) -> None:
    """The vector env at N >= 1024: its lowest rate over RLCard's, and whether throughput
    falls as N grows (the best of serial and parallel at each N)."""

    def big_vector(r):
        return r.get("num_envs", 0) >= 1024 and r.get("seats") is None

    per_size = best_per_size(judged.by_group.get("d", []))
    big = {size: rate for size, rate in per_size.items() if size >= 1024}
    judged.add(
        "vector env with observations vs RLCard, lowest over N >= 1024",
        min(big.values()) / judged.reference if big and judged.reference else None,
        TARGETS["vector_ratio"],
        unit="x",
        cpu_value=judged.cpu_ratio("d", big_vector),
    )
    sizes = sorted(per_size)
    growth = [per_size[b] / per_size[a] for a, b in zip(sizes, sizes[1:]) if a >= 1024]
    judged.add(
        "vector env throughput as N grows, lowest ratio to the size before",
        min(growth) if growth else None,
        TARGETS["vector_growth"],
        unit="x",
    )


def best_per_size(rows: list[dict]) -> dict[int, float]:
    """The vector env's best rate of serial and parallel at each N (the learner's path left out)."""
    per_size: dict[int, float] = {}
    for r in rows:
        if r.get("seats") is None and r.get("num_envs") and r.get("steps_per_s"):
            per_size[r["num_envs"]] = max(per_size.get(r["num_envs"], 0.0), r["steps_per_s"])
    return per_size


def startup_targets(judged: Judgement, startup: dict) -> None:
    """The start-up of fresh processes: with compilation, with the cache, and a newcomer's
    first use (empty cache, and after ``uno warm``)."""
    cold = startup.get("cold", {}).get("stages_s", {}).get("vector_serial")
    cached = startup.get("cached", {}).get("wall_s")
    judged.add("first use with compilation (import + vector env step)", cold, TARGETS["cold_start_s"], "lower", "s")
    judged.add("start with the cache (fresh process, wall)", cached, TARGETS["cached_start_s"], "lower", "s")
    first_use = startup.get("first_use", {}).get("stages_s", {})
    judged.add(
        "first use, empty cache: env.reset + first step (the engine interpreted while it compiles)",
        first_use.get("env_first_step"),
        TARGETS["first_step_s"],
        "lower",
        "s",
    )
    judged.add(
        "first use, empty cache: env.reset + first step, then the demo's tournament",
        first_use.get("demo_tournament"),
        TARGETS["first_use_s"],
        "lower",
        "s",
    )
    after_warm = startup.get("first_use_after_warm", {}).get("stages_s", {}).get("demo_tournament")
    judged.add(
        "first use after make's install step (uno warm): env.reset + first step, then the demo's tournament",
        after_warm,
        TARGETS["first_use_after_warm_s"],
        "lower",
        "s",
    )
