"""Playing the table games of a schedule: all-compiled tables in one compiled call,
tables with Python agents one decision at a time, and their records. Every game is
seeded by its job number alone, so the results do not depend on the process, the number
of workers or the runner (:mod:`.runners`: local, or Ray with :mod:`.distributed`)."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from uno_env.agents import Agent, agent_names, hash_seed, make_agent, register_agent
from uno_env.agents import policies as policy_kernels
from uno_env.engine import Game, IllegalActionError
from uno_env.engine import kernels as K
from uno_env.engine.game import seed_to_rng
from uno_env.engine.layout import S_LAST_WINNER, S_ROUND, S_STEP, S_TRUNCATED
from uno_env.engine.observers import HOOKS, with_hooks
from uno_env.engine.record import Recorder, save
from uno_env.replay import to_html

from .schedule import Entrant, Schedule

COMPILED_CHUNK = 2048  # games per compiled call (progress granularity)


RECORD_FIELDS = ("outcome", "scores", "last_winner", "steps", "rounds", "truncated", "seconds", "agent_seconds")


def job_seeds(seed: int, job: int) -> tuple[int, int]:
    """(game seed, policy generator seed) of a table game."""
    return hash_seed(seed, job, 0), hash_seed(seed, job, 1)


def empty_records(count: int, n: int) -> dict[str, np.ndarray]:
    return {
        "outcome": np.zeros((count, n), dtype=np.int64),
        "scores": np.zeros((count, n), dtype=np.int64),
        "last_winner": np.full(count, -1, dtype=np.int64),
        "steps": np.zeros(count, dtype=np.int64),
        "rounds": np.zeros(count, dtype=np.int64),
        "truncated": np.zeros(count, dtype=bool),
        "seconds": np.zeros(count, dtype=np.float64),
        "agent_seconds": np.zeros((count, n), dtype=np.float64),
    }


def read_results(game, state, b: int, rec: dict, row: int) -> None:
    ints = state.ints[b]
    rec["outcome"][row] = game.outcome(state, b)
    rec["scores"][row] = game.scores(state, b)
    rec["last_winner"][row] = ints[S_LAST_WINNER]
    rec["steps"][row] = ints[S_STEP]
    rec["rounds"][row] = ints[S_ROUND] + 1
    rec["truncated"][row] = bool(ints[S_TRUNCATED])


def play_compiled(config, lineups: list[tuple[int, ...]], policy_ids: list[int], jobs: list[int], seed: int):
    """Table games whose seats all play compiled policies, in one call over every numba thread."""
    game = Game(config)
    n = game.num_players
    size = len(jobs)
    state = game.new_state(size, events=False)
    prng = np.zeros(size, dtype=np.uint64)
    for b, job in enumerate(jobs):
        game_seed, policy_seed = job_seeds(seed, job)
        state.rng[b] = seed_to_rng(game_seed)
        prng[b] = seed_to_rng(policy_seed)
    K.reset_batch(state.cards, state.ints, state.rng, game.params, np.full(size, n - 1, np.int64), state.ev, state.evn)
    seat_policies = np.array([[policy_ids[e] for e in lineups[job]] for job in jobs], dtype=np.int64)
    rewards = np.zeros((size, n), dtype=np.float32)
    steps = np.zeros(size, dtype=np.int64)
    start = time.perf_counter()
    policy_kernels.play_batch(  # on numba.get_num_threads() threads: 1 in a worker process or Ray task
        state.cards,
        state.ints,
        state.rng,
        prng,
        game.params,
        seat_policies,
        False,
        config.max_steps + 1,
        rewards,
        steps,
    )
    elapsed = time.perf_counter() - start
    rec = empty_records(size, n)
    for b in range(size):
        read_results(game, state, b, rec, b)
    rec["seconds"][:] = elapsed / size
    return rec


class TablePlayer:
    """Plays table games one decision at a time from Python (for agents that are not
    compiled policies). Compiled entrants use the game's policy generator exactly as
    ``play_batch`` does, so a table of compiled agents gives the same game either way."""

    def __init__(self, config, entrants: list[Entrant], seed: int, extras: dict | None = None):
        for name, factory in (extras or {}).items():
            if name not in agent_names():
                register_agent(name, factory)
        self.game = Game(config)
        self.entrants = entrants
        self.seed = seed
        self.agents: dict[tuple[int, int], Agent] = {}

    def agent(self, entrant: int, seat: int) -> Agent:
        key = (entrant, seat)
        if key not in self.agents:
            self.agents[key] = make_agent(self.entrants[entrant].label, self.game, seed=0)
        return self.agents[key]

    def play(self, job: int, lineup: tuple[int, ...], record: bool = False) -> dict:
        """The results of table game ``job``; with ``record``, also its game record
        (``uno_env.engine.record``) under the key ``"record"``."""
        game = self.game
        P = game.params
        n = game.num_players
        game_seed, policy_seed = job_seeds(self.seed, job)
        state = game.new_state(1, events=self.follows(lineup))  # events only for agents that follow them
        game.reset(state, seed=game_seed, dealer=n - 1)
        prng = np.array([seed_to_rng(policy_seed)], dtype=np.uint64)
        agent_seconds = np.zeros(n)

        def compiled(policy_id: int):
            return lambda obs, mask: policy_kernels.policy_act(policy_id, obs, mask, P, prng, 0)

        def timed(agent, seat: int):
            def act(obs, mask):
                t = time.perf_counter()
                action = agent(obs, mask)
                agent_seconds[seat] += time.perf_counter() - t
                return action

            return with_hooks(act, agent)

        players = []
        for seat, e in enumerate(lineup):
            policy_id = self.entrants[e].policy_id
            if policy_id is not None:
                players.append(compiled(policy_id))
            else:
                agent = self.agent(e, seat)
                agent.reset(hash_seed(self.seed, job, 2 + seat))
                players.append(timed(agent, seat))
        recorder = None
        if record:
            labels = [self.entrants[e].label for e in lineup]
            recorder = Recorder(game, state, agents=labels, start={"seed": game_seed, "dealer": n - 1})
        start = time.perf_counter()
        failed = self.failure_counts(lineup)
        try:
            game.play(state, players, on_step=recorder.on_step if recorder is not None else None)
        except IllegalActionError as err:
            label = self.entrants[lineup[err.seat]].label if err.seat is not None else "?"
            raise RuntimeError(f"agent {label!r} at seat {err.seat}: {err}") from None
        rec: dict = empty_records(1, n)
        read_results(game, state, 0, rec, 0)
        rec["seconds"][0] = time.perf_counter() - start
        rec["agent_seconds"][0] = agent_seconds
        if recorder is not None:
            self.note_failures(recorder, lineup, failed)
            rec["record"] = recorder.record()
        return rec

    def failure_counts(self, lineup: tuple[int, ...]) -> list[int]:
        """The failures of each seat's program so far (:mod:`uno_env.agents.program`), for :meth:`note_failures`."""
        return [len(getattr(self.agents.get((e, seat)), "failures", ())) for seat, e in enumerate(lineup)]

    def note_failures(self, recorder, lineup: tuple[int, ...], before: list[int]) -> None:
        """Say in the game record what went wrong with a program since ``before``, at the step it missed."""
        for seat, e in enumerate(lineup):
            for failure in getattr(self.agents.get((e, seat)), "failures", [])[before[seat] :]:
                if failure["step"] is not None and failure["step"] < len(recorder.annotations):
                    recorder.annotations[failure["step"]] = {"failure": f"{failure['what']}: {failure['detail']}"}

    def follows(self, lineup: tuple[int, ...]) -> bool:
        """Whether an agent of the lineup follows the game's events (:mod:`uno_env.engine.observers`)."""
        return any(
            self.entrants[e].policy_id is None and any(hasattr(self.agent(e, seat), hook) for hook in HOOKS)
            for seat, e in enumerate(lineup)
        )


def save_games(config, entrants: list[Entrant], schedule: Schedule, seed: int, per_pairing: int, folder) -> list:
    """Game records of the first ``per_pairing`` table games of each pairing (the set of
    entrants at the table), replayed from Python with the tournament's seeds, so each is
    the game the tournament counted: ``folder/game_<job>.json``, with its HTML replay
    beside it (``.html``). Returns the paths of the records."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    player = TablePlayer(config, entrants, seed)
    taken: dict[tuple[int, ...], int] = {}
    paths = []
    for job, lineup in enumerate(schedule.jobs):
        pairing = tuple(sorted(set(lineup)))
        if taken.get(pairing, 0) >= per_pairing:
            continue
        taken[pairing] = taken.get(pairing, 0) + 1
        record = player.play(job, tuple(lineup), record=True)["record"]
        record["tournament"] = {"seed": seed, "job": job, "schedule": schedule.kind}
        path = save(record, folder / f"game_{job}.json")
        path.with_suffix(".html").write_text(
            to_html(record, title=f"tournament game {job}: {' vs '.join(record['agents'])}")
        )
        paths.append(path)
    return paths


def warm_up(config, entrants: list[Entrant], seed: int, lineups: list[tuple[int, ...]]) -> None:
    """Let every Python agent act once in this process, so that its compiled parts are
    compiled and cached on disk here once, not in every worker at the same time."""
    game = Game(config)
    for k in range(50):  # a first decision with a choice, so that a search runs
        state = game.init(seed=seed + k, dealer=config.num_players - 1)
        seat = game.current_player(state)
        obs, mask = game.observe(state, seat), game.legal_mask(state)
        if mask.sum() >= 3:
            break
    player = TablePlayer(config, entrants, seed)
    done = set()
    for lineup in lineups:
        for e in lineup:
            if entrants[e].policy_id is None and e not in done:
                done.add(e)
                player.agent(e, seat)(obs, mask)


def concat_records(parts: list[dict], n: int) -> dict:
    if not parts:
        return empty_records(0, n)
    return {k: np.concatenate([p[k] for p in parts]) for k in RECORD_FIELDS}


def put_records(records: dict, rows, rec: dict) -> None:
    """Write the records ``rec`` of the table games ``rows`` (job ids, in order) into ``records``."""
    for key in RECORD_FIELDS:
        records[key][rows] = rec[key]


def split_jobs(schedule: Schedule, entrants: list[Entrant]) -> tuple[list[int], list[tuple[int, tuple]], list[int]]:
    """The schedule's jobs for the runners: ids of the all-compiled tables (one compiled call
    per chunk), (id, lineup) of the tables with a Python agent, and each entrant's policy id
    (-1 for a Python agent)."""
    compiled = [j for j, lineup in enumerate(schedule.jobs) if all(entrants[e].policy_id is not None for e in lineup)]
    python = [
        (j, lineup) for j, lineup in enumerate(schedule.jobs) if any(entrants[e].policy_id is None for e in lineup)
    ]
    policy_ids = [e.policy_id if e.policy_id is not None else -1 for e in entrants]
    return compiled, python, policy_ids
