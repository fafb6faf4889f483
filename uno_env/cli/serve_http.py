"""The connections of ``uno serve``: uvicorn's h11 protocol with a deadline on every phase
and a budget of idle connections that nobody can exhaust (docs/DECISIONS.md, "uno serve").

A connection has :data:`HEAD_TIMEOUT` seconds from its opening, or from its last
answer, to send a whole request head (slowloris: a head sent a byte at a time, or never,
is closed then), :data:`BODY_TIMEOUT` seconds from the head to the body's end, and
:data:`KEEP_ALIVE` seconds idle between requests (uvicorn's own timer). A head over
:data:`MAX_HEAD` bytes is refused by h11 while it arrives (and by the guard when it came
in one write). At most :data:`MAX_WAITING` connections wait without a request in
flight (idle, or still sending a head); a new one beyond them closes the oldest of them,
those that never sent a whole head first. The person's page sends each request head in
one write, so it is served whatever number of idle or slow connections another process
holds: they cost it nothing but their turn to be closed. uvicorn's own answers (its 400
for a request h11 cannot read, its 500) carry :func:`~uno_env.cli.serve_guard.plain_headers`
and a one-line JSON body like every other answer.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from .serve_guard import FAILED, MAX_HEAD, plain_headers

HEAD_TIMEOUT = 10.0  # seconds to send a whole request head, from the opening or the last answer
BODY_TIMEOUT = 10.0  # seconds from the head to the body's end (at most 64 KB)
KEEP_ALIVE = 5.0  # seconds an idle connection is kept between requests
LINGER = 2.0  # seconds a refused request's remaining bytes are read and dropped before the close
MAX_WAITING = 64  # connections without a request in flight; beyond them the oldest is closed
READS = f"This server reads HTTP/1.1 with one Host header and a request head of at most {MAX_HEAD} bytes."


def short_answer(status: int, reason: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of one of the server's own answers: one line of JSON, the security headers."""
    body = json.dumps({"error": reason}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *plain_headers(),
    ]
    return headers, body


async def send_500(cycle: RequestResponseCycle) -> None:
    headers, body = short_answer(500, FAILED)
    await cycle.send({"type": "http.response.start", "status": 500, "headers": headers})
    await cycle.send({"type": "http.response.body", "body": body, "more_body": False})


class Protocol(H11Protocol):
    """uvicorn's h11 protocol with the module docstring's deadlines and budget."""

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        self.deadline: asyncio.TimerHandle | None = None
        self.in_flight = False
        self.had_head = False
        self.discarding = False  # after a refusal h11 could not read past: what arrives is dropped
        if not hasattr(self.server_state, "uno_waiting"):
            self.server_state.uno_waiting = {}  # type: ignore[attr-defined]
        book: dict[Protocol, tuple[bool, float]] = self.server_state.uno_waiting  # type: ignore[attr-defined]
        self.book = book
        others = list(book)
        self.wait_for_head()
        if len(book) > MAX_WAITING:
            oldest = min(others, key=lambda p: book[p])  # (had a head, since): slow heads first, then the oldest
            oldest.drop()

    def arm(self, seconds: float) -> None:
        self.disarm()
        self.deadline = self.loop.call_later(seconds, self.drop)

    def disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def wait_for_head(self) -> None:
        self.in_flight = False
        self.book[self] = (self.had_head, time.monotonic())
        self.arm(HEAD_TIMEOUT)

    def drop(self) -> None:
        """Close the connection (a deadline passed, or the budget wants its place)."""
        self.disarm()
        self.book.pop(self, None)
        if not self.transport.is_closing():
            self.transport.close()

    def connection_lost(self, exc) -> None:
        self.disarm()
        self.book.pop(self, None)
        super().connection_lost(exc)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self.cycle is not None and not self.in_flight:  # a whole head arrived
            self.in_flight = self.had_head = True
            self.book.pop(self, None)
            self.arm(BODY_TIMEOUT)
            self.cycle.send_500_response = functools.partial(send_500, self.cycle)  # type: ignore[method-assign]
        if self.cycle is not None and not self.cycle.more_body and self.in_flight:
            self.disarm()  # the body is in: the app's own deadlines hold from here

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self.wait_for_head()  # before uvicorn reads a pipelined request, which arms the body's deadline
        super().on_response_complete()

    def send_400_response(self, msg: str) -> None:
        """h11 could not read the request (a bad request line, no or two Hosts, a head over
        :data:`MAX_HEAD` bytes...): one short answer with the security headers, then close."""
        headers, body = short_answer(400, f"{msg} {READS}")
        try:
            self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
            self.transport.write(self.conn.send(h11.Data(data=body)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
        except h11.LocalProtocolError:  # an answer had begun: nothing more can be said
            pass
        self.linger()

    def linger(self) -> None:
        """Close after an answer to a request that was not read to its end: the answer is
        sent and the writing side shut, what still arrives is read and thrown away for at
        most :data:`LINGER` seconds (closing at once, with bytes unread, resets the
        connection, and the client may lose the answer)."""
        self.discarding = True
        self.book.pop(self, None)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.arm(LINGER)

    def data_received(self, data: bytes) -> None:
        if not self.discarding:
            super().data_received(data)


def server_config(app, **settings) -> uvicorn.Config:
    """uvicorn's settings for ``app``: :class:`Protocol`, the limits of the module docstring."""
    return uvicorn.Config(
        app,
        http=Protocol,
        log_level="warning",
        timeout_keep_alive=int(KEEP_ALIVE),
        h11_max_incomplete_event_size=MAX_HEAD,
        server_header=False,
        timeout_graceful_shutdown=1,
        **settings,
    )


__all__ = ["BODY_TIMEOUT", "HEAD_TIMEOUT", "KEEP_ALIVE", "MAX_WAITING", "Protocol", "server_config"]
