"""`REDIS_URL` naming Redis through Sentinel: `redis+sentinel://[[user]:password@]host:port[,host:port...]/service[/db]`.

The spelling is the `limits` library's (the rate limits' storage), with an optional database
number after the service name. The sentinels are asked for the service's primary, and asked
again after a failover, so a Redis primary that Sentinel replaces is followed without a restart
(docs/scaling.md). The password, if any, is the primary's and the sentinels' alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

SCHEME = "redis+sentinel"


class RedisUrlError(ValueError):
    """A `redis+sentinel://` URL that cannot be read."""


@dataclass(frozen=True)
class SentinelUrl:
    """Where the sentinels are, which service they watch, and how to log in to its primary."""

    sentinels: tuple[tuple[str, int], ...]
    service: str
    db: int = 0
    username: str | None = None
    password: str | None = None

    def limits_uri(self) -> str:
        """The same without the database number, which the `limits` library does not read
        from its URL (it is given to it as an option)."""
        auth = ""
        if self.password is not None or self.username is not None:
            auth = f"{self.username or ''}:{self.password or ''}@"
        hosts = ",".join(f"{host}:{port}" for host, port in self.sentinels)
        return f"{SCHEME}://{auth}{hosts}/{self.service}"


def is_sentinel(url: str) -> bool:
    return url.startswith(SCHEME + "://")


def parse_sentinel(url: str) -> SentinelUrl:
    """Read a `redis+sentinel://` URL; RedisUrlError says what is wrong with it."""
    if not is_sentinel(url):
        raise RedisUrlError(f"not a {SCHEME}:// URL")
    parts = urlsplit(url)
    userinfo, _, hostlist = parts.netloc.rpartition("@")
    username = password = None
    if userinfo:
        user, colon, secret = userinfo.partition(":")
        username = unquote(user) or None
        password = unquote(secret) if colon else None
    sentinels = []
    for item in hostlist.split(","):
        host, colon, port = item.rpartition(":")
        if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise RedisUrlError(f"each sentinel must read host:port, got {item!r}")
        sentinels.append((host.strip("[]"), int(port)))
    path = [p for p in parts.path.split("/") if p]
    if not path or len(path) > 2:
        raise RedisUrlError("the path must name the service Sentinel watches, then optionally"
                            " the database number: /mymaster or /mymaster/0")
    db = 0
    if len(path) == 2:
        if not path[1].isdigit():
            raise RedisUrlError(f"the database number must be an integer, got {path[1]!r}")
        db = int(path[1])
    if parts.query or parts.fragment:
        raise RedisUrlError("options are not read from a sentinel URL; remove what follows '?'")
    return SentinelUrl(tuple(sentinels), path[0], db, username, password)
