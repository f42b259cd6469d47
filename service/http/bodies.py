"""A chunked body held to the size cap (`MAX_CONTENT_LENGTH`) as one with a Content-Length is.

werkzeug refuses a body whose Content-Length passes the cap with a 413. A chunked body has no
Content-Length: gunicorn takes it apart and says so (`wsgi.input_terminated`), and werkzeug then
reads it up to the cap and stops there without a word, so the rest was dropped: valid JSON
followed by megabytes of spaces was read as the JSON alone and accepted. Here a chunked body is
read one byte past the cap, and that byte makes it a 413.
"""

from __future__ import annotations

from typing import IO, Any, cast

import flask
from gunicorn.http.errors import ParseException
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge
from werkzeug.utils import cached_property
from werkzeug.wsgi import LimitedStream


class MalformedChunks(BadRequest):
    """A chunked body that cannot be taken apart: the rest of the connection cannot be read
    either, so it ends with this answer, which says so."""

    def get_headers(self, *args: Any, **kwargs: Any) -> list[tuple[str, str]]:
        return [*super().get_headers(*args, **kwargs), ("Connection", "close")]


class _Capped(LimitedStream):
    """A stream of no stated length that may hold `cap` bytes: one more is a 413."""

    def __init__(self, stream: IO[bytes], cap: int) -> None:
        # A maximum, not a length: a stream that ends before it is a whole body, not a client
        # gone (werkzeug's `is_max`).
        super().__init__(stream, cap + 1, is_max=True)
        self.cap = cap

    def readinto(self, b: bytearray) -> int | None:  # type: ignore[override]
        try:
            read = super().readinto(b)
        except ParseException as e:  # gunicorn taking the chunks apart: a bad size, terminator
            raise MalformedChunks(f"the body's chunked encoding is malformed ({e})") from None
        if self.tell() > self.cap:
            raise RequestEntityTooLarge()
        return read


def _unmeasured(request: flask.Request) -> bool:
    """No Content-Length, and the server marks where the body ends: chunked, or no body at all."""
    return request.content_length is None and "wsgi.input_terminated" in request.environ


class Request(flask.Request):
    """Flask's request, with a chunked body's stream held to the cap."""

    @cached_property
    def stream(self) -> IO[bytes]:
        cap = self.max_content_length
        if cap is not None and _unmeasured(self) and not self.shallow:
            return cast(IO[bytes], _Capped(self.environ["wsgi.input"], cap))
        return super().stream


def has_body(request: flask.Request) -> bool:
    """Whether the client sent a body: with a Content-Length, or chunked and not empty (read
    here, within the cap, a 413 past it)."""
    if request.content_length:
        return True
    return _unmeasured(request) and bool(request.get_data(cache=True))
