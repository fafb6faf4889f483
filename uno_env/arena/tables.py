"""Playing the table games of a schedule: all-compiled tables in one compiled call,
tables with Python agents one decision at a time, and their records. Every game is
seeded by its job number alone, so the results do not depend on the process, the number
of workers or the runner (:mod:`.runners`: local, or Ray with :mod:`.distributed`)."""

from __future__ import annotations

import dataclasses
import time
import warnings
from pathlib import Path

import numpy as np

from uno_env.agents import Agent, agent_names, hash_seed, make_agent, register_agent
from uno_env.agents import policies as policy_kernels
from uno_env.agents.program import FAILURE_KINDS, ProgramFailureWarning
from uno_env.engine import Game, IllegalActionError
from uno_env.engine import kernels as K
from uno_env.engine.game import State, seed_to_rng
from uno_env.engine.layout import S_FORFEIT, S_LAST_WINNER, S_ROUND, S_STEP, S_TRUNCATED
from uno_env.engine.observers import HOOKS, with_hooks
from uno_env.engine.record import Recorder, save
from uno_env.replay import to_html

from .schedule import Entrant, Schedule

COMPILED_CHUNK = 2048  # games per compiled call (progress granularity)


RECORD_FIELDS = (
    "outcome",
    "scores",
    "last_winner",
    "steps",
    "rounds",
    "truncated",
    "seconds",
    "agent_seconds",
    "forfeit",
    "failures",
    "notes",
)
MAX_WARNINGS = 20
"""Failures told one warning each after a tournament; the rest in one line (all are in the results)."""


class TournamentStopped(RuntimeError):
    """``strict``: an agent failed, and the tournament stops there (the message says where and how)."""


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
        "forfeit": np.full(count, -1, dtype=np.int64),  # the seat that forfeited the game, -1: none
        "failures": np.zeros((count, n), dtype=np.int8),  # per seat, 1 + the FAILURE_KINDS index, 0: none
        "notes": np.full(count, None, dtype=object),  # the failures in words (a list of dicts), None: none
    }


def read_results(game, state, b: int, rec: dict, row: int) -> None:
    ints = state.ints[b]
    rec["outcome"][row] = game.outcome(state, b)
    rec["scores"][row] = game.scores(state, b)
    rec["last_winner"][row] = ints[S_LAST_WINNER]
    rec["steps"][row] = ints[S_STEP]
    rec["rounds"][row] = ints[S_ROUND] + 1
    rec["truncated"][row] = bool(ints[S_TRUNCATED])


def play_compiled(
    config,
    lineups: list[tuple[int, ...]],
    policy_ids: list[int],
    jobs: list[int],
    seed: int,
    deals: list[int] | None = None,
):
    """Table games whose seats all play compiled policies, in one call over every numba thread.
    Game ``b`` seats ``lineups[jobs[b]]`` and is seeded by its job, or by ``deals[b]`` where
    given (a duplicate deal: the same seeds at another seating)."""
    game = Game(config)
    n = game.num_players
    size = len(jobs)
    state = game.new_state(size, events=False)
    prng = np.zeros(size, dtype=np.uint64)
    for b, job in enumerate(jobs):
        game_seed, policy_seed = job_seeds(seed, job if deals is None else deals[b])
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

    def __init__(self, config, entrants: list[Entrant], seed: int, extras: dict | None = None, strict: bool = False):
        for name, factory in (extras or {}).items():
            if name not in agent_names():
                register_agent(name, factory)
        self.game = Game(config)
        self.forfeits = Game(dataclasses.replace(config, illegal_action="lose"))  # the rules' forfeit, at any setting
        self.strict = strict
        self.last_action = -1  # of the game being played
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
        refused, unforfeited = self.play_out(state, players, recorder)
        rec: dict = empty_records(1, n)
        read_results(game, state, 0, rec, 0)
        rec["seconds"][0] = time.perf_counter() - start
        rec["agent_seconds"][0] = agent_seconds
        notes = self.failures_of(job, lineup, state, failed, refused)
        for note in notes:
            rec["failures"][0, note["seat"]] = 1 + FAILURE_KINDS.index(note["what"])
        rec["forfeit"][0] = state.ints[0, S_FORFEIT]
        rec["notes"][0] = notes or None
        if recorder is not None:
            for note in notes:
                if note["decision"] < len(recorder.annotations):
                    recorder.annotations[note["decision"]] = {"failure": f"{note['what']}: {note['detail']}"}
            rec["record"] = recorder.record() if unforfeited is None else unforfeited
            if notes:
                rec["record"]["failures"] = notes
        return rec

    def play_out(self, state, players: list, recorder) -> tuple[dict | None, dict | None]:
        """Play the game to its end. An action the game refuses (a program's failure under
        "penalty" or "raise", or a card it does not hold) forfeits the seat as the rules'
        forfeit does (illegal_action "lose"). Returns what was refused (seat, what, detail,
        decision) and the game record up to it (the forfeit is no action of the game's
        settings: the record stops before it and replays), or (None, None) if nothing was.
        The programs' own warnings are left to :func:`warn_failures`, which names the table game."""
        self.last_action = -1

        def on_step(seat: int, action: int) -> None:
            self.last_action = action  # the forfeit's, should the game end by one
            if recorder is not None:
                recorder.on_step(seat, action)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ProgramFailureWarning)
            try:
                self.game.play(state, players, on_step=on_step)
                return None, None
            except IllegalActionError as err:
                if err.seat is None:  # not refused at a seat of this game: not an agent's failure
                    raise
                seat = int(err.seat)
                failure = getattr(err, "failure", None)
                refused = {"seat": seat, "what": "illegal action", "detail": str(err)}
                if failure is not None:
                    refused.update(what=failure["what"], detail=failure["detail"])
                refused["decision"] = int(state.ints[0, S_STEP])
                unforfeited = recorder.record() if recorder is not None else None
                forfeiting = list(players)
                forfeiting[seat] = with_hooks(unavailable_action, players[seat])
                shared = State(state.cards, state.ints, state.rng, state.ev, state.evn, self.forfeits.params)
                self.forfeits.play(shared, forfeiting)  # the same arrays, under "lose"
                return refused, unforfeited

    def failures_of(self, job: int, lineup: tuple[int, ...], state, before: list[int], refused: dict | None) -> list:
        """What went wrong in table game ``job``, one dict per failure (seat, what, detail,
        hand, decision, forfeit); with ``strict``, the first one stops the tournament."""
        forfeit = int(state.ints[0, S_FORFEIT])
        hand = int(state.ints[0, S_ROUND]) + 1
        notes = []
        for seat, e in enumerate(lineup):
            agent = self.agents.get((e, seat))
            for failure in getattr(agent, "failures", [])[before[seat] :]:
                step = failure["step"] if failure["step"] is not None else int(state.ints[0, S_STEP])
                notes.append({"seat": seat, "what": failure["what"], "detail": failure["detail"], "decision": step})
        if refused is not None and not any(note["seat"] == refused["seat"] for note in notes):
            notes.append(refused)
        if forfeit >= 0 and not any(note["seat"] == forfeit for note in notes):
            action = self.game.actions.strings[self.last_action] if self.last_action >= 0 else "an action"
            played = f"it played {action!r}, not available then (illegal_action='lose': the seat forfeits)"
            notes.append({"seat": forfeit, "what": "illegal action", "detail": played, "decision": -1})
        for note in notes:
            closing = getattr(self.agents.get((lineup[note["seat"]], note["seat"])), "close", None)
            if closing is not None:
                closing()  # a program that failed starts afresh at its next game
            note["decision"] = note["decision"] if note["decision"] >= 0 else int(state.ints[0, S_STEP]) - 1
            note.update(job=job, hand=hand, agent=self.entrants[lineup[note["seat"]]].label)
            note["forfeit"] = note["seat"] == forfeit
            if self.strict:
                stop = " (--strict: the tournament stops at the first failure)"
                raise TournamentStopped(describe_failure(note) + stop)
        return notes

    def close(self) -> None:
        """End the agents' programs (outside agents, :mod:`uno_env.agents.program`)."""
        for agent in self.agents.values():
            closing = getattr(agent, "close", None)
            if closing is not None:
                closing()

    def failure_counts(self, lineup: tuple[int, ...]) -> list[int]:
        """The failures of each seat's program so far (:mod:`uno_env.agents.program`), for :meth:`failures_of`."""
        return [len(getattr(self.agents.get((e, seat)), "failures", ())) for seat, e in enumerate(lineup)]

    def follows(self, lineup: tuple[int, ...]) -> bool:
        """Whether an agent of the lineup follows the game's events (:mod:`uno_env.engine.observers`)."""
        return any(
            self.entrants[e].policy_id is None and any(hasattr(self.agent(e, seat), hook) for hook in HOOKS)
            for seat, e in enumerate(lineup)
        )


def unavailable_action(observation: np.ndarray, mask: np.ndarray) -> int:
    """An action not available now: under illegal_action "lose", the rules' forfeit (the last
    actions are decisions, not cards, so no card is named)."""
    unavailable = np.flatnonzero(mask == 0)
    if not len(unavailable):
        raise RuntimeError("every action is available: a seat cannot forfeit here")
    return int(unavailable[-1])


def describe_failure(note: dict) -> str:
    """A failure in words: where (table game, hand, decision), who, what, and what it cost."""
    cost = "forfeits the game" if note["forfeit"] else "does not forfeit (the game was over)"
    return (
        f"table game {note['job']}, hand {note['hand']}, decision {note['decision'] + 1}: "
        f"{note['agent']} at seat {note['seat']} {cost}: {note['what']}: {note['detail']}"
    )


def warn_failures(records: dict) -> None:
    """One :class:`ProgramFailureWarning` per failure of the records, in table-game order (at
    most :data:`MAX_WARNINGS`, then one for the rest)."""
    notes = [note for row in records["notes"] if row for note in row]
    for note in notes[:MAX_WARNINGS]:
        warnings.warn(describe_failure(note), ProgramFailureWarning, stacklevel=2)
    if len(notes) > MAX_WARNINGS:
        warnings.warn(
            f"{len(notes) - MAX_WARNINGS} more failures (each entrant's count is in the results)",
            ProgramFailureWarning,
            stacklevel=2,
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
    try:
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
    finally:
        player.close()
    return paths


def warm_up(config, entrants: list[Entrant], seed: int, lineups: list[tuple[int, ...]]) -> None:
    """Let every Python agent act once in this process, so that its compiled parts are
    compiled and cached on disk here once, not in every worker at the same time. Outside
    programs (``cmd:``) have nothing to compile here: none is started."""
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
            if entrants[e].policy_id is None and entrants[e].name != "cmd" and e not in done:
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
