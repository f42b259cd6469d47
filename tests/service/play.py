"""A third-party client playing whole hands over HTTP, recording every response it receives."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from flask.testing import FlaskClient

from events.catalog import GAME_EVENT_PREFIX
from events.game_records import engine_event
from events.model import StoredEvent
from games import deck, registry
from games.contract import SPECTATOR, Viewer
from tests.games.test_sevenhalf_properties import concrete
from tests.service.conftest import OPERATOR, Player, bearer

DECKS = {
    "sette-e-mezzo": deck.italian_40(), "siete-y-media": deck.spanish_40(),
    "casino-pirate": deck.pirate_casino(), "pirate-pairs": deck.pirate_pairs_55(),
    "cassino": deck.french_52(),
}
SEVENHALF = {"sette-e-mezzo", "siete-y-media", "casino-pirate"}
OPERATOR_SEES = "operator"  # what the operator received, judged as a spectator's (he sits nowhere)


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value (keys included), and in the JSON texts it carries
    (an evidence bundle's events as stored)."""
    if isinstance(value, str):
        if value.startswith("{"):
            try:
                return {value} | strings(orjson.loads(value))
            except orjson.JSONDecodeError:
                pass
        return {value}
    if isinstance(value, dict):
        return {k for k in value} | {s for v in value.values() for s in strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings(v)}
    return set()


@dataclass
class Received:
    """One response a player got: the table version it reflects and its body (`hand`: the
    settled hand it is an audit read of)."""

    player: str
    version: int
    body: Any
    hand: str | None = None


@dataclass
class Session:
    """Players at one table, driven by a seeded random client."""

    client: FlaskClient
    game: str
    players: list[Player]
    table_id: str = ""
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    received: list[Received] = field(default_factory=list)
    last_version: int = 0
    turn_tables: int = 0  # `event: table` messages read from streams (the leak oracle saw them)
    feed_after: int | None = 0  # the position the log's feed was read up to (None: unread)
    feed_events: int = 0  # this table's events the operator read in the feed (the oracle saw them)
    feed_version: int = 0  # the table's latest version the operator read in the feed
    feed_reads: int = 0
    # Every other stream read with a stream ticket, as a browser's EventSource would, not the
    # token (tests that take Redis away, where tickets are kept, leave it off).
    ticketed: bool = False
    peeks: int = 0
    ticketed_peeks: int = 0  # streams read with a stream ticket, not the token (the oracle saw them)

    def call(self, player: Player, method: str, path: str, **kwargs: Any) -> Any:
        r = getattr(self.client, method)(path, headers={**player.auth, **kwargs.pop("headers", {})},
                                         **kwargs)
        body = orjson.loads(r.data) if r.data else None
        if "ETag" in r.headers:
            self.last_version = int(r.headers["ETag"].strip('"'))
        elif isinstance(body, dict) and isinstance(body.get("version"), int):
            self.last_version = max(self.last_version, body["version"])
        self.received.append(Received(player.id, self.last_version, body))
        return r

    def open(self, options: dict[str, Any], buy_in: int | None) -> None:
        r = self.client.post("/v1/tables", json={"game": self.game, "options": options},
                             headers=OPERATOR)
        assert r.status_code == 201, r.json
        self.table_id = r.json["id"]
        app = getattr(self.client, "application", None)
        if app is None:  # a client of a server in another process: the feed is left unread
            self.feed_after = None
        else:
            store = app.extensions["banco.store"]
            self.feed_after = store.read_stream(f"table-{self.table_id}", 0, limit=1)[0].position
        for i, p in enumerate(self.players):
            body: dict[str, Any] = {"age": 20 + 7 * i, "seed": f"seed-{i}"}
            if buy_in is not None:
                body["buy_in"] = buy_in
            r = self.call(p, "post", f"/v1/tables/{self.table_id}/seats", json=body)
            assert r.status_code == 201, r.json

    def deal(self) -> str:
        r = self.client.post(f"/v1/tables/{self.table_id}/hands", headers=OPERATOR)
        assert r.status_code == 201, r.json
        return str(r.json["hand"]["id"])

    def payload(self, action: dict[str, Any]) -> dict[str, Any]:
        return concrete(action, self.rng) if self.game in SEVENHALF else dict(action)

    def peek(self, player: Player) -> None:
        """Read the table's events, as a page and as Server-Sent Events (with the table itself
        when it is the player's turn), in the middle of play."""
        self.call(player, "get", f"/v1/tables/{self.table_id}/events", query_string={"limit": 1000})
        self.peeks += 1
        query: dict[str, Any] = {"timeout": 0.1, "turns": "true"}
        headers = player.auth
        if self.ticketed and self.peeks % 2 == 1:
            # As a browser's EventSource does: with a stream ticket of his, and no token.
            r = self.client.post("/v1/stream-tickets", headers=player.auth,
                                 json={"stream": "table", "table_id": self.table_id})
            assert r.status_code == 201, r.json
            query["ticket"], headers = r.json["ticket"], {}
            self.ticketed_peeks += 1
        r = self.client.get(f"/v1/tables/{self.table_id}/stream", query_string=query,
                            headers=headers)
        assert r.status_code == 200 and r.mimetype == "text/event-stream"
        for line in r.get_data(as_text=True).splitlines():
            if line == "event: table":
                self.turn_tables += 1
            if line.startswith("data: "):
                self.received.append(Received(player.id, self.last_version, orjson.loads(line[6:])))
        self.peek_feed()

    def peek_feed(self) -> None:
        """Read the log's feed as the operator, a spectator, in turn as a page and as Server-Sent
        Events: the oracle judges the table's events in it against what a spectator may know."""
        if self.feed_after is None:
            return
        stream = f"table-{self.table_id}"
        self.feed_reads += 1
        if self.feed_reads % 2 == 0:
            r = self.client.get("/v1/feed/stream", query_string={"timeout": 0.1},
                                headers={**OPERATOR, "Last-Event-ID": str(self.feed_after)})
            assert r.status_code == 200 and r.mimetype == "text/event-stream"
            items = [orjson.loads(line[6:]) for line in r.get_data(as_text=True).splitlines()
                     if line.startswith("data: ")]
        else:
            r = self.client.get("/v1/feed", query_string={"after": self.feed_after, "limit": 1000},
                                headers=OPERATOR)
            assert r.status_code == 200, r.json
            items = r.json["items"]
        self.feed_after = items[-1]["position"] if items else self.feed_after
        ours = [e for e in items if e["stream"] == stream]
        if ours:
            self.feed_events += len(ours)
            self.feed_version = max(self.feed_version, *(e["version"] for e in ours))
            self.received.append(Received(OPERATOR_SEES, max(e["version"] for e in ours), ours))

    def read_feed_to_the_end(self, timeout: float = 60) -> None:
        """Read the feed until it served the table's last event: a transaction open anywhere on
        the server holds its watermark back for as long (events/postgres.py)."""
        store = self.client.application.extensions["banco.store"]
        last = store.stream_version(f"table-{self.table_id}")
        deadline = time.monotonic() + timeout
        # The feed's own reads: the operator's evidence bundle (`audit`) may have shown him the
        # last event already, and a hand short enough to be peeked at once may have had none of
        # its events in the feed yet when it was.
        while self.feed_version < last:
            assert time.monotonic() < deadline, "the feed did not reach the table's last event"
            self.peek_feed()
            time.sleep(0.02)

    def play_hand(self, max_steps: int = 3000) -> None:
        """Act with whoever has legal actions until the hand is over."""
        for step in range(max_steps):
            if step % 7 == 3:
                self.peek(self.rng.choice(self.players))
            views = {p.id: self.call(p, "get", f"/v1/tables/{self.table_id}") for p in self.players}
            status = next(iter(views.values())).json["status"]
            if status != "playing":
                return
            movers = [p for p in self.players if views[p.id].json["legal_actions"]]
            assert movers, "a hand in play must offer someone an action"
            p = self.rng.choice(movers)
            if step % 7 == 0:
                self.peek(p)  # his stream brings him the table: the oracle reads that too
            table = views[p.id].json
            action = self.payload(self.rng.choice(table["legal_actions"]))
            if step % 5 == 1 and len(self.players) > 1:
                # Someone else tries the same move: refused, and the refusal must leak nothing.
                other = self.rng.choice([o for o in self.players if o is not p])
                if not views[other.id].json["legal_actions"]:
                    r = self.call(other, "post", f"/v1/tables/{self.table_id}/actions", json=action,
                                  headers={"If-Match": f'"{table["version"]}"'})
                    assert r.status_code in (403, 409, 422), r.json
                    assert r.headers["Content-Type"] == "application/problem+json"
            r = self.call(p, "post", f"/v1/tables/{self.table_id}/actions", json=action,
                          headers={"If-Match": f'"{table["version"]}"'})
            assert r.status_code == 200, (action, r.json)
        raise AssertionError("the hand did not end")

    def wait_settled(self, hand_id: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r = self.client.get(f"/v1/hands/{hand_id}", headers=OPERATOR)
            if r.json["status"] == "settled":
                return dict(r.json)
            time.sleep(0.1)
        raise AssertionError(f"hand {hand_id} was not settled")

    def audit(self, hand_id: str) -> None:
        """Read the settled hand's replay, verification and evidence bundle as each player, for
        the leak oracle."""
        for p in self.players:
            for what in ("replay", "verification", "evidence"):
                r = (evidence(self.client, hand_id, p.auth) if what == "evidence"
                     else self.client.get(f"/v1/hands/{hand_id}/{what}", headers=p.auth))
                assert r.status_code == 200, r.json
                body = orjson.loads(r.data)
                # A replay shows the hand up to its last event: judge it against that version.
                versions = ([s["version"] for s in body.get("steps", body.get("events", []))]
                            or [self.last_version])
                self.received.append(Received(p.id, max(versions), body, hand_id))
        # The operator's bundle is judged as a spectator's: he sits nowhere.
        r = evidence(self.client, hand_id, OPERATOR)
        assert r.status_code == 200, r.json
        body = orjson.loads(r.data)
        self.received.append(Received(OPERATOR_SEES, max(e["version"] for e in body["events"]), body,
                                      hand_id))

    def auditor_events(self, auditor_token: str) -> list[dict[str, Any]]:
        r = self.client.get(f"/v1/tables/{self.table_id}/events", query_string={"limit": 1000},
                            headers=bearer(auditor_token))
        return list(r.json["items"])


def evidence(client: Any, hand_id: str, headers: dict[str, str]) -> Any:
    """The hand's evidence bundle, asked again as its 503 says while no checkpoint can cover
    the hand yet (a transaction elsewhere on the server is still open)."""
    return until_covered(lambda: client.get(f"/v1/hands/{hand_id}/evidence", headers=headers))


def until_covered(ask: Callable[[], Any]) -> Any:
    """`ask`'s response once it is not a 503 `checkpoint_pending`, asked again as Retry-After
    says: the tests' servers share PostgreSQL, whose transaction ids are server-wide, so another
    test's open transaction can keep any hand from a checkpoint for a moment."""
    for _ in range(120):
        r = ask()
        if r.status_code != 503 or r.json["code"] != "checkpoint_pending":
            return r
        time.sleep(float(r.headers["Retry-After"]) / 4)
    raise AssertionError("no checkpoint covered the hand")


def knowledge(stored: list[StoredEvent], player: str, cards: set[str]) -> list[tuple[int, set[str]]]:
    """After each version of the table, the cards `player` may know: those in the events (or the
    public parts of events) the engines marked for him, in that hand's seat."""
    seats: dict[str, dict[str, int]] = {}
    known: set[str] = set()
    out = []
    for e in stored:
        if e.type == "HandBegan":
            seats[e.data["hand_id"]] = {s["player_id"]: s["seat"] for s in e.data["seats"]}
        if e.type.startswith(GAME_EVENT_PREFIX):
            event = engine_event(e)
            seat = seats[e.data["hand"]].get(player)
            viewer = Viewer.at_seat(seat) if seat is not None else SPECTATOR
            known |= strings(event.data if event.may_see(viewer) else event.public or {}) & cards
        out.append((e.version, set(known)))
    return out


def hidden_totals(value: Any) -> set[str]:
    """The totals (and their display forms) shown beside a card hidden from the reader: a total
    would tell what the hidden card is worth."""
    found: set[str] = set()
    if isinstance(value, dict):
        if isinstance(value.get("cards"), list) and None in value["cards"]:
            found |= {k for k in ("total", "total_display") if k in value}
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            found |= hidden_totals(v)
    return found


def leaks(session: Session, stored: list[StoredEvent]) -> list[tuple[str, int, set[str]]]:
    """Every response that showed its player a card he could not know at that version, or the
    total of a hand holding a card hidden from him."""
    cards = set(DECKS[session.game])
    # In a game with no secret moves, a settled hand's seed revealed to all tells everyone its
    # whole deck, and so every card of the hand: its audit reads may show any of them.
    opened = set() if registry.engine(session.game).info.secret_parameters else {
        e.data["hand_id"] for e in stored if e.type == "SeedRevealed" and not e.data["auditors_only"]}
    found = []
    for player in [p.id for p in session.players] + [OPERATOR_SEES]:
        timeline = knowledge(stored, player, cards)
        for got in (r for r in session.received if r.player == player):
            version = got.version
            allowed = set().union(*(k for v, k in timeline if v <= version)) if timeline else set()
            if got.hand in opened:
                allowed = cards
            shown = strings(got.body) & cards
            if not shown <= allowed:
                found.append((player, version, shown - allowed))
            if totals := hidden_totals(got.body):
                found.append((player, version, totals))
    return found

