"""The endpoints of ``uno serve`` (:mod:`uno_env.cli.serve`, whose docstring is the API's
table): the page, the JSON API and the replay, as Starlette routes over the games
(:mod:`uno_env.cli.serve_tables`). The games' work runs in :class:`Workers`' threads, one
request at a time per game (its lock, waited for on the event loop): a game whose agents
think never holds up the page, ``/api/options`` or the other games."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from uno_env.replay import page_with_cards

from .serve_guard import bad_text, clip
from .serve_tables import Refused, Table, Tables

PAGE = Path(__file__).parent / "data" / "serve.html"
BUSY_WAIT = 30.0  # seconds a request waits for its game, busy with an earlier request, before a 503
WORKERS = 4  # threads for the games' work (searches release the GIL: they think side by side)
IDLE = 30.0  # seconds after which an idle worker thread ends


class Workers:
    """A few daemon threads for the games' work: the event loop stays free to answer, and a
    thread still busy when the server stops does not keep the process alive. A thread idle
    for :data:`IDLE` seconds ends (the next job starts one again)."""

    def __init__(self, count: int = WORKERS):
        self.count = count
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.threads: list[threading.Thread] = []
        self.busy = 0
        self.lock = threading.Lock()

    def submit(self, function, *args) -> Future:
        future: Future = Future()
        self.jobs.put((future, function, args))
        with self.lock:
            if len(self.threads) < self.count:
                thread = threading.Thread(target=self.work, name=f"uno-serve-{len(self.threads)}", daemon=True)
                self.threads.append(thread)
                thread.start()
        return future

    def work(self) -> None:
        while True:
            try:
                future, function, args = self.jobs.get(timeout=IDLE)
            except queue.Empty:
                with self.lock:  # a job put before this check is taken; one put after it starts a thread
                    if self.jobs.empty():
                        self.threads.remove(threading.current_thread())
                        return
                continue
            if not future.set_running_or_notify_cancel():
                continue
            with self.lock:
                self.busy += 1
            try:
                future.set_result(function(*args))
            except BaseException as err:  # handed to the request that waits for it
                future.set_exception(err)
            finally:
                with self.lock:
                    self.busy -= 1


class Api:
    """The routes of ``uno serve`` over ``tables``, the games' work in ``workers``."""

    def __init__(self, tables: Tables, workers: Workers):
        self.tables, self.workers = tables, workers
        self.page = page_with_cards(PAGE, nonce="__NONCE__")

    def routes(self) -> list[Route]:
        def refusing(handler):
            async def endpoint(request: Request) -> Response:
                try:
                    return await handler(request)
                except Refused as why:
                    retry = {"Retry-After": "1"} if why.status == 503 else None
                    return JSONResponse({"error": clip(why)}, status_code=why.status, headers=retry)

            return endpoint

        return [
            Route("/", self.index),
            Route("/favicon.ico", self.icon),
            Route("/api/options", refusing(self.options)),
            Route("/api/games", refusing(self.create), methods=["POST"]),
            Route("/api/games/{game}", refusing(self.view)),
            Route("/api/games/{game}/log", refusing(self.log)),
            Route("/api/games/{game}/action", refusing(self.act), methods=["POST"]),
            Route("/api/games/{game}/continue", refusing(self.resume), methods=["POST"]),
            Route("/api/games/{game}/record", refusing(self.record)),
            Route("/api/games/{game}/replay", refusing(self.replay)),
        ]

    async def body_of(self, request: Request) -> Any:
        raw = await request.body()  # at most MAX_BODY bytes, nested at most MAX_DEPTH deep: the guard read it
        try:
            data = json.loads(raw or b"{}")
        except (UnicodeDecodeError, ValueError, RecursionError) as err:  # ValueError: JSON's, and 4,300+ digits
            raise Refused(400, f"the request's body is not JSON ({clip(err, 120)})") from None
        why = bad_text(data)
        if why:  # nothing is kept or shown that cannot be written back: refused before anything is made
            raise Refused(400, f"{why}; text may hold no lone surrogate and no control character")
        return data

    async def run(self, function, *args):
        """``function`` in a worker thread: the server answers others meanwhile."""
        return await asyncio.wrap_future(self.workers.submit(function, *args))

    async def on_table(self, table: Table, function, *args):
        """``function`` with the game to itself: its lock is waited for here, on the event
        loop (no thread waits), and let go by the worker when the work ends, even if the
        request that asked for it is gone."""
        end = time.monotonic() + BUSY_WAIT
        while not table.lock.acquire(blocking=False):
            if time.monotonic() > end:
                raise Refused(503, f"game {table.id} is busy with an earlier request; try again")
            await asyncio.sleep(0.02)
        try:
            future = self.workers.submit(function, *args)
        except BaseException:
            table.lock.release()
            raise
        future.add_done_callback(lambda _: table.lock.release())
        return await asyncio.wrap_future(future)

    async def index(self, request: Request) -> Response:
        return HTMLResponse(self.page.replace("__NONCE__", request.scope["uno.nonce"]))

    async def icon(self, request: Request) -> Response:  # the browser asks for one: nothing to show, no error
        return Response(status_code=204)

    async def options(self, request: Request) -> Response:
        return JSONResponse(self.tables.options())

    async def create(self, request: Request) -> Response:
        body = await self.body_of(request)
        table = await self.run(self.tables.create, body)
        return JSONResponse(await self.on_table(table, table.view), status_code=201)

    async def view(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["game"])
        return JSONResponse(await self.on_table(table, table.view))

    async def log(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["game"])
        return JSONResponse(await self.on_table(table, table.history))

    async def act(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["game"])
        body = await self.body_of(request)
        if not isinstance(body, dict) or set(body) != {"action"}:
            raise Refused(400, f'an action is a JSON object {{"action": id}}, got {clip(repr(body), 80)}')

        def step():
            table.act(body["action"])
            return table.view()

        return JSONResponse(await self.on_table(table, step))

    async def resume(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["game"])
        body = await self.body_of(request)
        if body != {}:
            raise Refused(400, f"continue takes an empty JSON object {{}}, got {clip(repr(body), 80)}")

        def play_on():
            table.resume()
            return table.view()

        return JSONResponse(await self.on_table(table, play_on))

    async def record(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["game"])
        record = await self.on_table(table, table.record)
        return Response(
            json.dumps(record, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="uno-{table.id}.json"'},
        )

    async def replay(self, request: Request) -> Response:
        """The replay page, built once as the game was played (:meth:`Table.replay`)."""
        table = self.tables.get(request.path_params["game"])
        return HTMLResponse(await self.on_table(table, table.replay, request.scope["uno.nonce"]))


__all__ = ["Api", "Workers"]
