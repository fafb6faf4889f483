"""Speed of outside programs (``cmd:``, docs/PROTOCOL.md): ``python -m uno_env.bench.programs``.

Two measurements, with an example bot (``examples/bots/random_bot.py``, or ``--bot node``
for the JavaScript one, or any ``--command``) against ``tactical`` at two-player tables, one
hand a game:

a. **a tournament** (:func:`uno_env.arena.run_tournament`) at each ``--workers``: the bot's
   decisions per second, from the start of the games to the last (worker processes and
   programs started, warm-up included). The bot's decisions are counted in a first run in
   this process (one worker); the games, seeded, are the same with any number of workers
   (checked: the results are compared);
b. **the round trip**, in this process: per decision of the bot, the CPU time of the host
   (the play loop, ``tactical``'s decisions, the message, the answer), the CPU time of the
   program, and the wall time, against the same loop with the compiled ``random`` in the
   bot's seat: what the protocol adds.

The machine is shared and noisy: every figure is the median of ``--repeats`` runs, shown
with the load average. Nothing here is asserted; ``uno_env/agents/program.py`` is tested in
tests/test_program_agent.py.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from uno_env.agents import make_agent, register_agent, registered_extras
from uno_env.agents.program import ProgramAgent
from uno_env.arena import run_tournament
from uno_env.engine import Game, RuleConfig

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples" / "bots"


class CountedProgram(ProgramAgent):
    """A program agent that counts the decisions it is asked in this process."""

    decisions = 0

    def act(self, observation, mask):
        CountedProgram.decisions += 1
        return super().act(observation, mask)


def counted_program(rules=None, seed: int = 0, command: str = "") -> ProgramAgent:
    """A program (``counted:command=...``) whose decisions are counted (the benchmark's)."""
    return CountedProgram(rules, seed, command=command)


def bot_command(bot: str, command: str | None) -> str:
    if command:
        return command
    if bot == "node":
        return f"node {shlex.quote(str(EXAMPLES / 'random_bot.js'))}"
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLES / 'random_bot.py'))}"


def tournament_rates(command: str, games: int, workers: list[int], repeats: int, seed: int) -> dict:
    """The bot's decisions per second in tournaments, per number of workers."""
    if "counted" not in registered_extras():
        register_agent("counted", counted_program, "a program whose decisions are counted")
    config = RuleConfig(num_players=2, episode="round")
    spec = f"counted:command={command}"
    CountedProgram.decisions = 0
    cpu = _cpu_of_all()
    _, _, _, reference = run_tournament([spec, "tactical"], config, games, seed=seed, workers=1, bootstrap=0)
    cpu = _cpu_of_all() - cpu  # this process and its program, ended and reaped when the tournament ends
    decisions = CountedProgram.decisions
    rates = {}
    for count in workers:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            _, _, _, records = run_tournament([spec, "tactical"], config, games, seed=seed, workers=count, bootstrap=0)
            times.append(time.perf_counter() - start)
            if not np.array_equal(records["outcome"], reference["outcome"]):
                raise RuntimeError("the games differ between runs: is the program seeded by hello's seed?")
        rates[count] = {"seconds": statistics.median(times), "per_second": decisions / statistics.median(times)}
    return {"games": games, "bot_decisions": decisions, "cpu_us_per_decision": cpu / decisions * 1e6, "workers": rates}


def _cpu_of_all() -> float:
    """CPU seconds of this process and of its children that have ended."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def round_trip(command: str, games: int, repeats: int) -> dict:
    """Per decision of the bot: host CPU, program CPU and wall microseconds, and the same loop's
    host CPU with the compiled ``random`` in its seat."""
    game = Game(num_players=2, episode="round")
    tactical = make_agent("tactical", game, seed=1)
    program = CountedProgram(game, 0, command=command)
    compiled = make_agent("random", game)
    count = [0]

    def counted_random(observation, mask):
        count[0] += 1
        return compiled(observation, mask)

    def run(seat_agent) -> tuple[float, float]:
        start, cpu = time.perf_counter(), time.process_time()
        for g in range(games):
            state = game.init(seed=g)
            game.play(state, [seat_agent, tactical] if g % 2 else [tactical, seat_agent])
        return time.perf_counter() - start, time.process_time() - cpu

    run(program)  # started, warm
    rows = []
    for _ in range(repeats):
        assert program.process is not None
        pid = program.process.popen.pid
        CountedProgram.decisions, count[0] = 0, 0
        bot_cpu = _cpu_seconds(pid)
        wall, host = run(program)
        bot_cpu = _cpu_seconds(pid) - bot_cpu
        decisions = CountedProgram.decisions
        _, base = run(counted_random)
        rows.append((wall / decisions, host / decisions, bot_cpu / decisions, base / count[0]))
    program.close()
    wall, host, bot, base = (statistics.median(column) * 1e6 for column in zip(*rows))
    return {"wall_us": wall, "host_cpu_us": host, "program_cpu_us": bot, "compiled_random_host_cpu_us": base}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m uno_env.bench.programs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", choices=("python", "node"), default="python", help="the example bot (default python)")
    parser.add_argument("--command", default=None, help="another program's command (instead of --bot)")
    parser.add_argument("--games", type=int, default=2000, help="games of each tournament (default 2000)")
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (default 1,2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure; the median is shown (default 3)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    command = bot_command(args.bot, args.command)
    workers = [int(w) for w in args.workers.split(",") if w.strip()]
    load = os.getloadavg()[0]
    trip = round_trip(command, max(args.games // 10, 50), args.repeats)
    rates = tournament_rates(command, args.games, workers, args.repeats, seed=0)
    print(f"program: {command}  (load average {load:.1f} on {os.cpu_count()} CPUs)")
    print(
        f"round trip per decision of the program: wall {trip['wall_us']:.0f} us; "
        f"CPU: host {trip['host_cpu_us']:.0f} us "
        f"(the same loop with compiled random in its seat: {trip['compiled_random_host_cpu_us']:.0f} us), "
        f"program {trip['program_cpu_us']:.0f} us"
    )
    cpus = os.cpu_count() or 1
    per = rates["cpu_us_per_decision"]
    print(
        f"CPU per decision of the program, every process of a one-worker tournament: {per:.0f} us "
        f"(on {cpus} idle CPUs, {cpus} workers would play about {cpus / per * 1e6:.0f} a second)"
    )
    for count, rate in rates["workers"].items():
        print(
            f"tournament, {count} worker{'s' if count > 1 else ''}: {rates['bot_decisions']} decisions of the program "
            f"in {rate['seconds']:.2f} s: {rate['per_second']:.0f} a second ({rates['games']} games)"
        )
    if args.out is not None:
        args.out.write_text(json.dumps({"command": command, "load": load, "round_trip": trip, **rates}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
