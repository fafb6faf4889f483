"""The guard in front of ``uno serve``: only the page the server hands out may drive it.

:class:`Guard` is an ASGI middleware around the Starlette app. Every request

0. has a head of at most :data:`MAX_HEAD` bytes in :data:`MAX_HEADERS` headers (else
   431: h11 checks the size only while a head arrives, not one sent in a single write),
   sends each header of :data:`SINGLE` at most once (else 400: two ``Origin`` headers,
   say, where the last would decide) and a path free of control characters;
1. names this server in ``Host``: ``127.0.0.1``, ``localhost``, ``[::1]``, the bound address
   or a name given with ``--allow-host``, with the server's port (else 403: a page whose
   own name was rebound to 127.0.0.1 is refused);
2. carries the server's secret token (else 403): the cookie ``uno-token-PORT`` (HttpOnly,
   SameSite=Strict) that the server sets when the address it printed,
   ``http://127.0.0.1:PORT/?token=...``, is opened (that visit is answered by a redirect to
   ``/``: the token leaves the address bar and the history), or the header ``X-Uno-Token``
   (scripts);
3. if it is a POST: comes from the page's own origin (``Origin``, when sent, is
   ``http://HOST:PORT`` of the request, and ``Sec-Fetch-Site``, when sent, ``same-origin``:
   else 403), is ``Content-Type: application/json`` (else 415: another origin cannot send
   that without a CORS preflight, which this server never grants), has a body of at most
   :data:`MAX_BODY` bytes (else 413, before the body is read: ``Content-Length`` first, a
   chunked body counted as it arrives) nested at most :data:`MAX_DEPTH` deep (else 400).

Every answer, the refusals and the pages included, carries :func:`security_headers`: a
Content-Security-Policy that runs only the page's own inline script and style (a nonce
per answer, ``scope["uno.nonce"]``, that the pages put on their tags), ``frame-ancestors
'none'``, ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and
``Cache-Control: no-store``. A refusal is ``{"error": "..."}``, one line that quotes at
most an :func:`excerpt` of what was sent; a request that fails inside the server is
answered ``500 {"error": ...}`` with the same headers. The API reads JSON bodies whose
text :func:`bad_text` finds clean (no lone surrogate, no control character: else 400
naming the field).
"""

from __future__ import annotations

import json
import logging
import secrets
import unicodedata
import urllib.parse
from collections.abc import Iterable

TOKEN_HEADER = TOKEN_HEADER_NAME = "x-uno-token"

MAX_BODY = 64 * 1024
MAX_HEAD = 16 * 1024  # bytes of a request head: its line and headers (h11 refuses more while it arrives)
MAX_HEADERS = 64
FAILED = "the server failed on this request (its log says why)"
SINGLE = ("host", "origin", "sec-fetch-site", "content-type", "content-length", "cookie", TOKEN_HEADER_NAME)
MAX_DEPTH = 16  # the API's bodies nest 3 deep
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
SAFE_METHODS = ("GET", "HEAD")


def excerpt(value, limit: int = 80) -> str:
    """``repr(value)``, cut to about ``limit`` characters (saying how long it was)."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}... ({len(text)} characters)"


def clip(text: object, limit: int = 300) -> str:
    """``str(text)`` on one line, cut to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``body`` nests arrays and objects more than ``limit`` deep
    (brackets inside strings do not count); cheap where there are few brackets at all."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth, in_string, escaped = 0, False, False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def bad_character(text: str) -> str | None:
    """What makes ``text`` unfit to keep or show: a lone surrogate or a control character
    (its code point and place), else None."""
    for place, char in enumerate(text):
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            return f"a lone surrogate U+{code:04X} at character {place}"
        if unicodedata.category(char) == "Cc":
            return f"a control character U+{code:04X} at character {place}"
    return None


def bad_text(data, where: str = "body", depth: int = 0) -> str | None:
    """Why the JSON ``data`` (nested at most MAX_DEPTH deep: the guard checked) holds
    malformed text, naming the field (``agents[0]``, ``settings: a key``), else None."""
    if isinstance(data, str):
        why = bad_character(data)
        return f"{where}: {why}" if why else None
    if isinstance(data, list):
        items = enumerate(data)
        return next((w for k, v in items if (w := bad_text(v, f"{where}[{k}]", depth + 1))), None)
    if isinstance(data, dict):
        for key, value in data.items():
            why = bad_character(key)
            if why:
                return f"{where}: a key holds {why}"
            inner = key if where == "body" else f"{where}.{key}"
            found = bad_text(value, inner, depth + 1)
            if found:
                return found
    return None


def plain_headers() -> list[tuple[bytes, bytes]]:
    """The security headers of an answer that is no page: nothing may run, load or frame it."""
    policy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    return security_headers(None, policy)


def security_headers(nonce: str | None, policy: str | None = None) -> list[tuple[bytes, bytes]]:
    policy = policy or (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src 'self' data:; "
        "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    )
    return [
        (b"content-security-policy", policy.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"cache-control", b"no-store"),
    ]


def split_host(value: str) -> tuple[str, int | None]:
    """``"name:port"`` -> ``("name", port)``; ``"[::1]:8000"`` -> ``("[::1]", 8000)``; no
    port (or a bad one): ``(name, None)`` / ``("", None)``."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value.partition("]")
        name += "]"
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        name, _, port_text = value.partition(":")
    if not port_text:
        return name, None
    return (name, int(port_text)) if port_text.isdigit() and len(port_text) <= 5 else ("", None)


def cross_site_refusal(headers: dict) -> tuple[int, str] | None:
    """Why a request that changes the games is refused for coming from another site, else None."""
    origin = headers.get("origin")
    if origin is not None and origin.lower() != f"http://{headers['host'].lower()}":
        return 403, f"Origin {excerpt(origin)} is not this page's; cross-origin requests are refused"
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return 403, f"Sec-Fetch-Site {excerpt(site)}: only this page may change the games"
    return None


def body_refusal(headers: dict) -> tuple[int, str] | None:
    """Why a request's body is refused from its headers alone (not JSON, too long), else None."""
    kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        return 415, f"a request body must be Content-Type: application/json, got {excerpt(kind)}"
    length = headers.get("content-length")
    if length is not None and not (length.isdigit() and len(length) < 20):
        return 400, f"Content-Length {excerpt(length)} is not a number of bytes"
    if length is not None and int(length) > MAX_BODY:
        return 413, f"the body is {int(length)} bytes; at most {MAX_BODY} are read"
    return None


def head_refusal(scope) -> tuple[int, str] | None:
    """Why a request head is refused whatever it asks (too large, a header twice, a bad path), else None."""
    pairs = scope["headers"]
    size = len(scope["method"]) + len(scope.get("raw_path", b"")) + len(scope.get("query_string", b""))
    size += sum(len(k) + len(v) + 4 for k, v in pairs)
    if size > MAX_HEAD or len(pairs) > MAX_HEADERS:
        return 431, f"the request head is {size} bytes in {len(pairs)} headers; at most {MAX_HEAD} in {MAX_HEADERS}"
    names = [k.decode("latin-1").lower() for k, _ in pairs]
    twice = sorted({n for n in names if n in SINGLE and names.count(n) > 1})
    if twice:
        return 400, f"the header {twice[0]} is sent twice; a request names it once"
    why = bad_character(scope["path"])
    if why:
        return 400, f"path: {why}"
    return None


class Guard:
    """The ASGI middleware of the module docstring, around ``app``; ``token``: the secret
    (a fresh one by default), ``port``: the server's, ``hosts``: names served besides the
    loopback ones."""

    def __init__(self, app, token: str | None = None, port: int = 8000, hosts: Iterable[str] = ()):
        self.app = app
        self.token = token or secrets.token_urlsafe(24)
        self.port = port
        self.hosts = {*LOOPBACK, *(h.lower() if ":" not in h or h.startswith("[") else f"[{h}]" for h in hosts)}
        self.cookie = f"uno-token-{port}"

    def address(self, host: str = "127.0.0.1") -> str:
        """The address to open: the page, with the token."""
        return f"http://{host}:{self.port}/?token={self.token}"

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":  # a websocket: none is served
            return await send({"type": "websocket.close", "code": 1008})
        nonce = secrets.token_urlsafe(16)
        scope["uno.nonce"] = nonce
        extra = security_headers(nonce)
        started = False

        async def send_guarded(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                ours = {name for name, _ in extra}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in ours]
                message = {**message, "headers": kept + extra}
            await send(message)

        try:
            await self.guarded(scope, receive, send_guarded)
        except Exception:
            if started:
                raise
            logging.getLogger("uno_env.serve").exception("a request failed")
            await self.answer(send_guarded, 500, FAILED)

    async def guarded(self, scope, receive, send_guarded):
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self.refusal(scope, headers)
        if refusal is not None:
            return await self.answer(send_guarded, *refusal)
        if scope["method"] in SAFE_METHODS and scope["path"] == "/" and self.query_token(scope) is not None:
            return await self.answer(
                send_guarded,
                303,
                "opening the table",
                [(b"location", b"/"), (b"set-cookie", self.set_cookie().encode())],
            )
        if scope["method"] in SAFE_METHODS:
            return await self.app(scope, receive, send_guarded)
        body = await self.body(scope, headers, receive, send_guarded)
        if body is None:
            return
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send_guarded)

    def query_token(self, scope) -> str | None:
        query = urllib.parse.parse_qs(scope.get("query_string", b"").decode("latin-1"))
        return query.get("token", [None])[0]

    def set_cookie(self) -> str:
        return f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def refusal(self, scope, headers: dict) -> tuple[int, str] | None:
        """Why a request is refused before the app sees it (status, reason), else None."""
        head = head_refusal(scope)
        if head is not None:
            return head
        name, port = split_host(headers.get("host", ""))
        if name not in self.hosts or (port or 80) != self.port:
            served = f"http://127.0.0.1:{self.port}/"
            return 403, f"Host {excerpt(headers.get('host', ''))} is not this server ({served}); refused"
        if not self.has_token(scope, headers):
            return 403, f"no valid token: open the address uno serve printed (http://127.0.0.1:{self.port}/?token=...)"
        if scope["method"] in SAFE_METHODS:
            return None
        return cross_site_refusal(headers) or body_refusal(headers)

    def has_token(self, scope, headers: dict) -> bool:
        offered = [headers.get(TOKEN_HEADER)]
        for part in headers.get("cookie", "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == self.cookie:
                offered.append(value)
        if scope["path"] == "/" and scope["method"] in SAFE_METHODS:
            offered.append(self.query_token(scope))
        return any(t is not None and secrets.compare_digest(t.encode(), self.token.encode()) for t in offered)

    async def body(self, scope, headers: dict, receive, send) -> bytes | None:
        """The body, read up to :data:`MAX_BODY` (None: refused, or the client went away)."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            piece = message.get("body", b"")
            size += len(piece)
            if size > MAX_BODY:
                await self.answer(send, 413, f"the body is over {MAX_BODY} bytes; at most {MAX_BODY} are read")
                return None
            chunks.append(piece)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if too_deep(body):
            await self.answer(send, 400, f"the request's JSON is nested more than {MAX_DEPTH} deep")
            return None
        return body

    async def answer(self, send, status: int, reason: str, headers: list | None = None) -> None:
        body = json.dumps({"error": reason} if status >= 400 else {"ok": reason}).encode()
        start = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if status >= 400:
            start.append((b"connection", b"close"))  # a body left unread is not read
        await send({"type": "http.response.start", "status": status, "headers": start + (headers or [])})
        await send({"type": "http.response.body", "body": body})


__all__ = [
    "MAX_BODY",
    "MAX_DEPTH",
    "MAX_HEAD",
    "FAILED",
    "Guard",
    "bad_text",
    "clip",
    "excerpt",
    "plain_headers",
    "security_headers",
    "too_deep",
]
