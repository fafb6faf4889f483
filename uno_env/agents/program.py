"""Outside agents: any program that speaks the agent protocol (docs/PROTOCOL.md) takes a seat.

    make_agent("cmd:python examples/bots/random_bot.py", rules)
    make_agent("cmd:decision_seconds=1:game_seconds=60:node examples/bots/random_bot.js", rules)

The spec is ``cmd:`` and the command, verbatim (spaces, colons and ``=`` included), after
optional ``key=value:`` options (:data:`OPTIONS`: ``decision_seconds``, the time for one
answer, default 5; ``game_seconds``, for all its answers in one game, default 600;
``start_seconds``, for the first answer after the program starts, default 10). The command
is split as a shell would (:func:`shlex.split`) and run without a shell (``sh -c '...'``
for pipes or variables): one process per agent (a tournament makes one agent per seat and
worker process), started at the agent's first game, playing game after game (a ``hello``
starts each), ended by :meth:`ProgramAgent.close`, when the agent is dropped, when the
Python process exits, on SIGTERM and on Ctrl-C. Each runs in its own process group, so the
whole group is ended, its own children included. Its stderr is kept in a temporary file;
its end is quoted when the program fails.

A program *fails* when it dies, stalls (no answer within the deadline; it is then ended),
writes a bad line (not the answer due, or over :data:`~.protocol.MAX_LINE` bytes) or breaks
the framing (a line no question asked for): the kinds of :data:`FAILURE_KINDS`. The answer
to a question is the first line the program writes after it (for the first ``hello``, the
first line it writes at all), judged alone; whatever comes with or after the answer is
found before the host's next message, once the program has stopped running
(:meth:`_Process.settle`), so that a program is named the same way in every run. A failed
program has not answered, and the game's ``illegal_action`` setting decides what that
costs, as for an unavailable action: ``"lose"``, the seat
forfeits the game (the agent answers an unavailable action: the engine ends the game, -1 to
the seat) and a :class:`ProgramFailureWarning` says what happened; ``"penalty"`` and
``"raise"``, a :class:`ProgramFailure` (an :class:`~uno_env.engine.IllegalActionError`)
stops the game, naming the program, the seat and what happened. Either way
:attr:`ProgramAgent.failures` keeps it (game, step, what), and the next game starts the
program afresh. An answer that is an action of the table but not available now goes to the
engine as it is: ``illegal_action`` decides (a wrong card draws 2 under "penalty", every
unavailable action ends the game under "lose", ...). A tournament
(:class:`uno_env.arena.TablePlayer`) turns every failure into a forfeit of that game,
whatever the setting, and counts it. Ending a program ends what it started, also what left
its process group (Linux: :mod:`.reaper`).
"""

from __future__ import annotations

import atexit
import contextlib
import math
import multiprocessing.util
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
import warnings

import numpy as np

from uno_env.engine import Game, IllegalActionError, RuleConfig
from uno_env.engine import kernels as K

from .following import FollowingAgent
from .protocol import MAX_LINE, Messages, ProtocolError, dumps, parse_action, parse_ready, shorten
from .reaper import TOKEN_VARIABLE, become_subreaper, kill_descendants, reap
from .text import decision_text

OPTIONS = {"decision_seconds": 5.0, "game_seconds": 600.0, "start_seconds": 10.0}
"""The options of a ``cmd:`` agent and their defaults (seconds)."""
MAX_PROGRAMS = 256
"""The most programs one Python process runs at a time."""
SETTLE_SECONDS = 0.05
"""How long the host waits, before its next message, for a program still running after its
answer to stop (Linux), so that what it writes with or after the answer is there to be read."""
SETTLE_TICKS = (0.00002, 0.001)
"""How often that wait looks whether the program still runs: first after 20 us (a program
that answered is usually a few microseconds from waiting for its next line), then twice as
long each time, up to 1 ms (a program that works on)."""
EXIT_CHECK_SECONDS = 0.05
"""How often a wait for an answer looks whether the program has exited."""
GRACE_SECONDS = 0.5
"""How long a program may take to exit once its input is closed, before it is killed."""
STDERR_TAIL = 600
"""Characters of a failed program's stderr quoted in its failure."""
FAILURE_KINDS = ("died", "stalled", "bad line", "framing", "illegal action")
"""What a program's failure is: it ``died`` (exited, was killed, closed its output, or could
not start), ``stalled`` (no answer in time), wrote a ``bad line`` (not the answer due, or
too long), broke the ``framing`` (a line no question asked for: with or after an answer, or
a second ``ready``), or played an ``illegal action`` (one the game refused, or forfeited by)."""

_OPTION = re.compile(r"(" + "|".join(OPTIONS) + r")=([^:]*):")


def parse_program_spec(rest: str) -> dict:
    """The options of a ``cmd:`` spec from what follows ``cmd:``: leading ``key=value:``
    options of :data:`OPTIONS`, then the command, verbatim."""
    options: dict = {}
    while match := _OPTION.match(rest):
        try:
            options[match.group(1)] = float(match.group(2))
        except ValueError:
            raise ValueError(f"cmd: {match.group(1)}={match.group(2)!r}: expected a number of seconds") from None
        rest = rest[match.end() :]
    options["command"] = rest.strip()
    return options


class ProgramFailure(IllegalActionError):
    """A program that died, stalled or wrote garbage, under ``illegal_action`` "penalty" or
    "raise" (see the module docstring); ``failure`` says what happened."""

    def __init__(self, message: str, failure: dict):
        super().__init__(message, K.ST_NOT_AVAILABLE)
        self.failure = failure


class ProgramFailureWarning(UserWarning):
    """A program failed under ``illegal_action="lose"``: its seat forfeits the game."""


class _Failed(Exception):
    def __init__(self, what: str, detail: str):
        super().__init__(f"{what}: {detail}")
        self.what, self.detail = what, detail


# ---------------------------------------------------------------------- one process

_RUNNING: dict[int, _Process] = {}
_LOCK = threading.RLock()
_CLEANUP_INSTALLED = False


class _Process:
    """One running program: its pipes, the bytes read but not taken, its stderr file."""

    def __init__(self, argv: list[str]):
        with _LOCK:
            if len(_RUNNING) >= MAX_PROGRAMS:
                raise _Failed("died", f"it could not start: {MAX_PROGRAMS} programs run in this process already")
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115  (open while the program runs)
        self.token = uuid.uuid4().hex  # marks its processes, also those that leave its group (.reaper)
        _install_cleanup()
        try:
            self.popen = subprocess.Popen(
                argv,
                env={**os.environ, TOKEN_VARIABLE: self.token},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                bufsize=0,
                start_new_session=True,  # its own process group: ended as a whole, not hit by the terminal's Ctrl-C
            )
        except OSError as err:
            self.stderr.close()
            raise _Failed("died", f"it could not start: {err}") from None
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.stdin, self.stdout = self.popen.stdin.fileno(), self.popen.stdout.fileno()
        os.set_blocking(self.stdin, False)
        self.poll = select.poll()
        self.poll.register(self.stdout, select.POLLIN)
        try:  # its state, read at each settle (Linux; elsewhere the host does not wait)
            self.stat: int | None = os.open(f"/proc/{self.popen.pid}/stat", os.O_RDONLY)
        except OSError:
            self.stat = None
        self.buffer = b""
        self.closed = False
        with _LOCK:
            _RUNNING[self.popen.pid] = self

    def send(self, line: str, seconds: float) -> None:
        data = memoryview((line + "\n").encode())
        end = time.perf_counter() + seconds
        while data:
            try:
                data = data[os.write(self.stdin, data) :]
            except BlockingIOError:
                left = end - time.perf_counter()
                ready = select.select([], [self.stdin], [], max(left, 0))[1] if left > 0 else []
                if not ready:
                    raise _Failed("stalled", "it does not read its input") from None
            except OSError:  # a broken pipe: it has ended
                raise _Failed("died", self.exit_text()) from None

    def read_line(self, seconds: float) -> bytes:
        """The next non-blank line, within ``seconds``."""
        end = time.perf_counter() + seconds
        while True:
            cut = self.buffer.find(b"\n")
            if cut >= 0:
                line, self.buffer = self.buffer[:cut], self.buffer[cut + 1 :]
                if line.strip():
                    return line
                continue
            if len(self.buffer) > MAX_LINE:
                raise _Failed("bad line", f"a line longer than {MAX_LINE} bytes: {shorten(self.buffer)}")
            left = end - time.perf_counter()
            if left <= 0 or not self.poll.poll(math.ceil(min(left, EXIT_CHECK_SECONDS) * 1000)):
                if self.exited() is not None:  # gone, though what it started may hold its output open
                    raise _Failed("died", self.exit_text())
                if time.perf_counter() < end:
                    continue
                raise _Failed("stalled", "no answer")
            chunk = os.read(self.stdout, 1 << 16)
            if not chunk:
                raise _Failed("died", self.exit_text())
            self.buffer += chunk

    def running(self) -> bool:
        """Whether its process is running or waiting for a processor (Linux: state ``R``), not
        waiting for input, a timer or anything else; False where that cannot be read."""
        if self.stat is None:
            return False
        try:
            data = os.pread(self.stat, 512, 0)
        except OSError:  # reaped
            return False
        return data.rpartition(b")")[2].split(b" ", 2)[1] == b"R"

    def settle(self, seconds: float = SETTLE_SECONDS) -> None:
        """Wait, at most ``seconds``, until the program is no longer running, reading what it
        writes meanwhile: what it writes right after its answer is then there to be read,
        however the two processes were scheduled."""
        end = time.perf_counter() + seconds
        tick, longest = SETTLE_TICKS
        while self.running() and time.perf_counter() < end:
            if select.select([self.stdout], [], [], tick)[0] and not self.take_output():
                return
            tick = min(2 * tick, longest)

    def take_output(self) -> bool:
        """Read what it has written (there is some) into the buffer; False once its output has
        ended or the buffer holds more than a line may."""
        chunk = os.read(self.stdout, 1 << 16)
        self.buffer += chunk
        return bool(chunk) and len(self.buffer) <= MAX_LINE

    def unasked(self) -> bytes:
        """What it wrote that no question asked for: once it has settled, the rest of its
        buffer and whatever it has written since (read without waiting), blank lines left out."""
        self.settle()
        while self.poll.poll(0) and self.take_output():
            pass
        extra = self.buffer.strip()
        self.buffer = b""
        return extra

    def exited(self) -> int | None:
        """Its exit status once it has exited (still a zombie: its group can be ended), else None."""
        try:
            info = os.waitid(os.P_PID, self.popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped already
            return self.popen.returncode
        return None if info is None else info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def exit_text(self) -> str:
        deadline = time.perf_counter() + 0.2
        status = self.exited()
        while status is None and time.perf_counter() < deadline:
            time.sleep(0.005)
            status = self.exited()
        said = self.stderr_tail()
        how = (
            "it closed its output"
            if status is None
            else f"it exited with status {status}"
            if status >= 0
            else f"it was killed by signal {-status}"
        )
        return how + (f"; its stderr ends: {said!r}" if said else "")

    def stderr_tail(self) -> str:
        try:
            size = os.fstat(self.stderr.fileno()).st_size
            data = os.pread(self.stderr.fileno(), STDERR_TAIL * 4, max(0, size - STDERR_TAIL * 4))
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace")[-STDERR_TAIL:].strip()

    def close(self, grace: float = GRACE_SECONDS) -> None:
        """End it: its input closed, ``grace`` seconds to exit, then its process group killed and reaped."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self.popen.stdin.close()  # type: ignore[union-attr]  # its end of input: a program should exit
        end = time.perf_counter() + grace
        while self.exited() is None and time.perf_counter() < end:
            time.sleep(0.002)
        killed = kill_descendants(self.popen.pid, self.token)  # what it started, in its group or not (Linux)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.popen.pid, signal.SIGKILL)  # the group: the program and what it started
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.popen.pid, signal.SIGKILL)  # itself, had it left its group (still unreaped: its pid)
        self.popen.wait()
        reap(killed)  # re-parented here (a subreaper) once the program is gone
        self.popen.stdout.close()  # type: ignore[union-attr]
        self.stderr.close()
        if self.stat is not None:
            os.close(self.stat)
        with _LOCK:
            _RUNNING.pop(self.popen.pid, None)


def close_all(grace: float = 0.0) -> None:
    """End every program this process runs."""
    with _LOCK:
        running = list(_RUNNING.values())
    for process in running:
        process.close(grace)


def _on_sigterm(signum, frame) -> None:
    # no locks and no waiting here: the interrupted code may hold them (the process ends next;
    # its orphaned, killed children are reaped by init)
    for pid, process in tuple(_RUNNING.items()):
        with contextlib.suppress(Exception):
            kill_descendants(pid, process.token)  # first, while the program's children are still its own
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _install_cleanup() -> None:
    """Once per process: end the programs at exit (also in a multiprocessing worker) and on
    SIGTERM (where nothing else handles it: a pool ends its workers so)."""
    global _CLEANUP_INSTALLED
    if _CLEANUP_INSTALLED:
        return
    _CLEANUP_INSTALLED = True
    become_subreaper()  # what a program's children leave behind is re-parented here, to be reaped
    atexit.register(close_all)
    multiprocessing.util.Finalize(None, close_all, exitpriority=100)
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


# ---------------------------------------------------------------------- the agent


def _is_ready(line: bytes) -> bool:
    try:
        parse_ready(line)
    except ProtocolError:
        return False
    return True


def _seconds(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ValueError(f"cmd: {name} must be a positive number of seconds, got {value!r}")
    return float(value)


class ProgramAgent(FollowingAgent):
    """A program that speaks the agent protocol, at one seat (see the module docstring)."""

    def __init__(
        self,
        rules: RuleConfig | Game | None = None,
        seed: int = 0,
        command: str = "",
        decision_seconds: float = OPTIONS["decision_seconds"],
        game_seconds: float = OPTIONS["game_seconds"],
        start_seconds: float = OPTIONS["start_seconds"],
    ):
        if not isinstance(command, str) or not command.strip():
            raise ValueError(
                f"cmd: give the program's command after 'cmd:', e.g. 'cmd:python my_bot.py'; got {command!r}"
            )
        try:
            self.argv = shlex.split(command)
        except ValueError as err:
            raise ValueError(f"cmd: {command!r}: {err}") from None
        if shutil.which(self.argv[0]) is None:
            raise ValueError(f"cmd: {command!r}: no program {self.argv[0]!r} (not on PATH, or not an executable file)")
        self.command = command
        self.name = f"cmd:{command}"
        self.decision_seconds = _seconds("decision_seconds", decision_seconds)
        self.game_seconds = _seconds("game_seconds", game_seconds)
        self.start_seconds = _seconds("start_seconds", start_seconds)
        self.process: _Process | None = None
        self.program_name: str | None = None
        """The name the program gave in its ``ready`` (None: none yet)."""
        self.failures: list[dict] = []
        """Every failure: ``game`` (its number since the last reset), ``step`` (the decisions taken in the
        game, None outside a play loop), ``seat``, ``what`` (one of :data:`FAILURE_KINDS`), ``detail``."""
        self._failure: dict | None = None  # this game's
        self._forfeited: dict | None = None  # the failure last warned of as a forfeit
        self._reported = False
        self._text = False
        self._spent = 0.0
        self._asked: str | None = None  # the last question (None: none since the program started)
        self.decisions = 0
        """Decisions the program was asked, since the agent was made."""
        super().__init__(rules, seed)
        self.messages = Messages(self.game)

    def __reduce__(self):
        options = (self.decision_seconds, self.game_seconds, self.start_seconds)
        return (ProgramAgent, (self.config, self.seed, self.command, *options))

    def __repr__(self) -> str:
        return f"ProgramAgent(command={self.command!r}, seed={self.seed!r})"

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # the interpreter may be shutting down
            self.close()

    def close(self) -> None:
        """End the program (the next game starts it again)."""
        process, self.process = getattr(self, "process", None), None
        if process is not None:
            process.close()

    # ------------------------------------------------------------------ the game, told by the hooks
    def game_started(self) -> None:
        self._failure, self._spent = None, 0.0
        try:
            first = self.process is None or self.process.exited() is not None
            if first:
                self.close()
                self.process = _Process(self.argv)
                self._asked = None  # its first line, whenever written, answers the first hello
            seat, seed = self.seat, self.game_seed()
            answer = self._ask(dumps(self.messages.hello(seat, seed)), self.start_seconds if first else None, "hello")
            ready = parse_ready(answer)
        except (_Failed, ProtocolError) as why:
            self._fail(why, None)
            return
        self.program_name = ready.get("name") or self.program_name
        self._text = bool(ready.get("text", False))

    def round_ended(self, events: list[dict]) -> None:
        self._tell(Messages.round_end(self.take_events()))

    def game_ended(self, outcome: list[int], scores: list[int]) -> None:
        self._tell(Messages.game_end(outcome, scores, self.take_events()))
        if self._failure is not None and not self._reported:  # it failed with no decision left to miss
            self._reported = True
            warnings.warn(
                f"{self.describe_failure(self._failure)}; the game was over", ProgramFailureWarning, stacklevel=2
            )

    def _tell(self, message: dict) -> None:
        if self.process is None or self._failure is not None:
            return
        try:
            self._check_framing()
        except _Failed as why:
            self._fail(why, None)
            return
        try:
            self.process.send(dumps(message), self._deadline())
        except _Failed as why:
            if message["type"] != "game_end":  # a program that stops after its last decision has cost nothing
                self._fail(why, None)
            self.close()

    def _check_framing(self) -> None:
        """Fail with ``framing`` if the program wrote what no question asked for (with or after
        its last answer); nothing is asked of a program that has just started."""
        assert self.process is not None
        if self._asked is None:
            return
        extra = self.process.unasked()
        if extra:
            after = f"after its answer to {self._asked}"
            raise _Failed("framing", f"a line it was not asked for, {after}: {shorten(extra)}")

    # ------------------------------------------------------------------ decisions
    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs, legal = self.check(observation, mask)
        if self.starting or (self.process is None and self._failure is None):  # no hook began it, or closed
            self.begin(self.seat)
        if self._failure is None and self.process is not None:
            self.decisions += 1
            events = self.take_events()
            text = decision_text(self.game, obs, legal, events, self.seat) if self._text else None
            try:
                asked = f"the decision at step {self.step}"
                answer = self._ask(self.messages.decision(obs, legal, events, text), None, asked)
                if _is_ready(answer):  # late, or one of two: it answered hello more than once
                    raise _Failed("framing", f"a second answer to hello, for {asked}: {shorten(answer)}")
                return parse_action(answer, self.game)
            except (_Failed, ProtocolError) as why:
                self._fail(why, self.step)
        return self._after_failure(legal)

    def _deadline(self) -> float:
        return min(self.decision_seconds, max(self.game_seconds - self._spent, 0.0))

    def _ask(self, line: str, seconds: float | None, question: str) -> bytes:
        """Send ``line`` (``question``: what it asks, for the failures) and read the answer, the
        first line written after it: within ``seconds`` (not counted in the game's time), else
        within the decision's and the game's deadlines. Anything written before it, with or
        after the last answer, breaks the framing."""
        assert self.process is not None
        counted = seconds is None
        limit = self._deadline() if seconds is None else seconds
        start = time.perf_counter()
        try:
            self._check_framing()
            self._asked = question
            self.process.send(line, limit)
            answer = self.process.read_line(max(limit - (time.perf_counter() - start), 0.0))
        except _Failed as why:
            if why.what != "stalled":
                raise
            if counted and limit < self.decision_seconds:
                raise _Failed(
                    "stalled", f"{why.detail}: its time for the game ({self.game_seconds:g} s) is spent"
                ) from None
            raise _Failed("stalled", f"{why.detail} within {limit:g} s") from None
        finally:
            if counted:
                self._spent += time.perf_counter() - start
        return answer

    # ------------------------------------------------------------------ failures
    def _fail(self, why: Exception, step: int | None) -> None:
        """Keep what went wrong (at ``step``, the decision it missed; None: not at a decision) and end the program."""
        what, detail = (why.what, why.detail) if isinstance(why, _Failed) else ("bad line", str(why))
        if what != "died" and self.process is not None:
            said = self.process.stderr_tail()
            detail += f"; its stderr ends: {said!r}" if said else ""
        self._failure = {"game": self.games, "step": step, "seat": self.seat, "what": what, "detail": detail}
        self._reported = False
        self.failures.append(self._failure)
        self.close()

    def describe_failure(self, failure: dict) -> str:
        seat = f"seat {failure['seat']}" if failure["seat"] is not None else "its seat"
        return f"{self.name} at {seat}, game {failure['game']}: {failure['what']}: {failure['detail']}"

    def _after_failure(self, legal: np.ndarray) -> int:
        failure = self._failure
        if failure is None:  # no process and no failure: cannot happen (a game start makes one or fails)
            raise RuntimeError(f"{self.name}: no program running")
        if failure["step"] is None:  # it failed between decisions: this is the one it misses
            failure["step"] = self.step
        self._reported = True
        unavailable = np.flatnonzero(legal == 0)
        if self.config.illegal_action == "lose" and len(unavailable):
            if self._failure is not self._forfeited:
                self._forfeited = failure
                warnings.warn(
                    f"{self.describe_failure(failure)}; the seat forfeits the game (illegal_action='lose')",
                    ProgramFailureWarning,
                    stacklevel=3,
                )
            return int(unavailable[-1])  # the last actions are decisions, not cards: no card named
        raise ProgramFailure(
            f"{self.describe_failure(failure)} (illegal_action={self.config.illegal_action!r}: the game stops; "
            "with illegal_action='lose' the seat forfeits instead)",
            failure,
        )


__all__ = [
    "FAILURE_KINDS",
    "GRACE_SECONDS",
    "MAX_PROGRAMS",
    "OPTIONS",
    "ProgramAgent",
    "ProgramFailure",
    "ProgramFailureWarning",
    "close_all",
    "parse_program_spec",
]
