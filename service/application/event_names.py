"""The names of the log's event types: the service's own and every engine's (`game.` and its
name), which filters (the feed's `types`, a webhook's `event_types`) are checked against, so that
a misspelt one is refused rather than matching nothing for good."""

from __future__ import annotations

from functools import cache

from events.catalog import GAME_EVENT_PREFIX, PAYLOADS
from games.registry import event_data


@cache
def names() -> frozenset[str]:
    """Every event type the log may hold."""
    return frozenset(PAYLOADS) | {GAME_EVENT_PREFIX + name for name in event_data()}


def known(name: str) -> bool:
    """Whether `name` is an event type of the log."""
    return name in names()


def matching(pattern: str) -> frozenset[str]:
    """The event types `pattern` names: itself, or every type it is a prefix of when it ends in
    `*` (`game.*`: every game's events); none for an unknown type."""
    if pattern.endswith("*"):
        return frozenset(n for n in names() if n.startswith(pattern[:-1]))
    return frozenset({pattern}) if known(pattern) else frozenset()


def known_pattern(pattern: str) -> bool:
    """Whether `pattern` is an event type, or a prefix of some ending in `*`."""
    return bool(matching(pattern))
