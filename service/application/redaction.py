"""What of a table each caller may receive: every table response goes through here.

A seat's number belongs to a hand (seats are renumbered when a player leaves), so the viewer of
an engine event is worked out from that hand's line-up, never from today's.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from typing import Any

import psycopg

from events.catalog import GAME_EVENT_PREFIX
from events.game_records import engine_event
from events.model import StoredEvent
from games.contract import AUDITOR, SPECTATOR, GameInfo, Viewer, may_see, payload_secret, redact
from projections import tables
from service.application.principal import Principal


def viewer_in(principal: Principal, seats: Iterable[dict[str, Any]]) -> Viewer:
    """The viewer `principal` is among these seats: auditor, his own seat, or a spectator."""
    if principal.role == "auditor":
        return AUDITOR
    if principal.role == "player":
        for seat in seats:
            if seat["player_id"] == principal.subject:
                return Viewer.at_seat(int(seat["seat"]))
    return SPECTATOR


def payload_shown(command: dict[str, Any], viewer: Viewer, info: GameInfo) -> bool:
    """Whether `viewer` may read the payload a seat's command was sent with: the sender and
    auditors always, anyone else unless it sets one of the game's secret parameters."""
    if viewer.kind == "auditor" or (viewer.kind == "seat" and command.get("seat") == viewer.seat):
        return True
    return not payload_secret(info, command.get("payload"))


class Redactor:
    """Redacts a table's stored events for one caller, remembering each hand's line-up.

    `lineups` (hand id to its seats) may be shared by the redactors of one table's followers: a
    hand's line-up never changes, and is then read once for all of them.
    """

    def __init__(self, conn: psycopg.Connection | None, principal: Principal,
                 lineups: dict[str, list[dict[str, Any]]] | None = None) -> None:
        self.conn = conn
        self.principal = principal
        self._viewers: dict[str, Viewer] = {}
        self._lineups = {} if lineups is None else lineups

    def viewer_for_hand(self, hand_id: str) -> Viewer:
        if self.principal.role != "player":
            # Auditors and the operator see every hand alike, whoever sat in it: no line-up
            # is read for them (a read of the whole log's feed would read every hand's).
            return viewer_in(self.principal, ())
        if hand_id not in self._viewers:
            if hand_id not in self._lineups:
                assert self.conn is not None, "a hand's line-up is read with a connection"
                hand = tables.hand(self.conn, hand_id)
                self._lineups[hand_id] = hand["seats"] if hand else []
            self._viewers[hand_id] = viewer_in(self.principal, self._lineups[hand_id])
        return self._viewers[hand_id]

    def view(self, stored: StoredEvent) -> Hashable:
        """What `event(stored)` depends on besides the event: callers with the same view of an
        event receive the same redaction of it."""
        if stored.type.startswith(GAME_EVENT_PREFIX):
            return self.viewer_for_hand(stored.data["hand"])
        return stored.type == "SeedRevealed" and self.principal.role == "auditor"

    def event(self, stored: StoredEvent) -> dict[str, Any]:
        """The event as this caller may receive it."""
        out: dict[str, Any] = {"version": stored.version, "recorded_at": stored.recorded_at.isoformat()}
        if stored.type.startswith(GAME_EVENT_PREFIX):
            hand = stored.data["hand"]
            shown = redact(engine_event(stored), self.viewer_for_hand(hand))
            return {**out, "kind": "game", "type": shown.type, "hand": hand, "data": dict(shown.data)}
        data = self._table_data(stored)
        kind = "ledger" if stored.type == "TreasurePosted" else "table"
        return {**out, "kind": kind, "type": stored.type, "hand": data.get("hand_id") or data.get("hand"),
                "data": data}

    def _table_data(self, stored: StoredEvent) -> dict[str, Any]:
        """A copy of the payload of an event that is not an engine's, as this caller may see it."""
        data = dict(stored.data)
        if stored.type == "SeedRevealed" and data["auditors_only"] and self.principal.role != "auditor":
            # A conceded Casino pirate hand stays hidden: its seed would let anyone recompute it.
            data = {"hand_id": data["hand_id"], "auditors_only": True}
        return data

    def logged(self, stored: StoredEvent) -> dict[str, Any]:
        """The event as the log's feed shows it to this caller: a table's as `event` redacts it,
        named by its place in the log. A registration shows no name, sealed or (in registrations
        older than sealing) clear: an erased player's would still be there, and names are read
        from the players' resource, which knows who was erased.

        The same as `event` gives, built in one dict: the feed and the webhooks pass every event
        of the log through here, and `event`'s intermediate dict and `Event`s were a fifth of a
        feed page's time (bench/README.md). An engine event's record is read as `engine_event`
        would make it, its data shown whole or as its public part by the same rule as `redact`."""
        d = stored.data
        if stored.type.startswith(GAME_EVENT_PREFIX):
            hand = d["hand"]
            seen = may_see(d["visible_to"], self.viewer_for_hand(hand))
            data = dict(d["data"] if seen else d["public"] or {})
        else:
            data = self._table_data(stored)
            hand = data.get("hand_id") or data.get("hand")
            if stored.type == "PlayerRegistered":
                data = {"player_id": data["player_id"]}
        return {"position": stored.position, "stream": stored.stream_id, "version": stored.version,
                "type": stored.type, "recorded_at": stored.recorded_at.isoformat(), "hand": hand,
                "data": data}

    def events(self, stored: Iterable[StoredEvent]) -> Iterator[dict[str, Any]]:
        for event in stored:
            yield self.event(event)
