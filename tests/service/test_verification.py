"""Verification catches tampering: each check fails on a copy of the log edited behind its back,
naming the event (stream and version) where it broke."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from games.sevenhalf.display import points
from service.verification.hand_log import load_table
from service.verification.verify import verify_hand, verify_table
from tests.service.conftest import OPERATOR, bearer
from tests.service.play import Session, until_covered
from tests.service.tamper import edit, log_copy


@pytest.fixture
def copy(database_url, played) -> Iterator[psycopg.Connection]:
    with log_copy(database_url) as conn:
        yield conn


def failures(conn: psycopg.Connection, hand_id: str) -> dict[str, dict[str, Any] | None]:
    report = verify_hand(conn, hand_id)
    assert report is not None
    return {c["name"]: c["event"] for c in report["checks"] if not c["passed"]}


def first(conn: psycopg.Connection, stream: str, type_: str, where: str = "true") -> int:
    row = conn.execute(f"SELECT version FROM events WHERE stream_id = %s AND type = %s AND {where}"
                       " ORDER BY version LIMIT 1", (stream, type_)).fetchone()
    assert row is not None, f"no {type_} in {stream}"
    return int(row[0])


def test_an_untouched_copy_passes_every_check(copy, played):
    assert failures(copy, played["hand"]) == {}


def test_an_edited_event_breaks_the_chain_and_the_rules(copy, played):
    stream = played["stream"]
    version = first(copy, stream, "game.TurnPassed")
    edit(copy, stream, version, lambda d: d["data"].update(at=d["data"]["at"] + 1), rehash=False)
    found = failures(copy, played["hand"])
    at = {"stream": stream, "version": version}
    assert found["integrity.chain"] == at
    assert found["rules"] == at


def test_a_forged_chain_does_not_hide_an_edited_event_from_the_rules(copy, played):
    stream = played["stream"]
    version = first(copy, stream, "game.TurnPassed")
    edit(copy, stream, version, lambda d: d["data"].update(seat=d["data"]["seat"] + 1))
    found = failures(copy, played["hand"])
    assert "integrity.chain" not in found
    assert found["rules"] == {"stream": stream, "version": version}


def test_a_swapped_card_is_not_the_decks_next_card(copy, played):
    stream = played["stream"]
    version = first(copy, stream, "game.CardDealt")

    def change(d: dict[str, Any]) -> None:
        d["data"]["card"] = "Ks" if d["data"]["card"] != "Ks" else "As"
        if d["public"] and "card" in d["public"]:
            d["public"]["card"] = d["data"]["card"]

    edit(copy, stream, version, change)
    found = failures(copy, played["hand"])
    assert found["deck.dealt"] == {"stream": stream, "version": version}
    assert found["rules"] == {"stream": stream, "version": version}


def test_a_changed_posting_differs_from_settle(copy, played):
    stream = played["stream"]
    settled = first(copy, stream, "HandSettled")
    version = first(copy, stream, "TreasurePosted", f"version > {settled}")
    edit(copy, stream, version, lambda d: d.update(amount=d["amount"] + 1))
    found = failures(copy, played["hand"])
    assert found["money.settlement"] == {"stream": stream, "version": version}


def test_an_overdraft_is_named(copy, played):
    stream = played["stream"]
    version = first(copy, stream, "TreasurePosted", "data->>'reason' = 'bet'")
    edit(copy, stream, version, lambda d: d.update(amount=1000))
    found = failures(copy, played["hand"])
    assert found["money.no_negative"] == {"stream": stream, "version": version}
    assert found["rules"] == {"stream": stream, "version": version}


def test_a_broken_link_is_named(copy, played):
    stream = played["stream"]
    version = first(copy, stream, "game.CardDealt")
    copy.execute("UPDATE events SET hash = sha256(hash) WHERE stream_id = %s AND version = %s",
                 (stream, version))
    found = failures(copy, played["hand"])
    assert found == {"integrity.chain": {"stream": stream, "version": version}}


def test_a_seed_that_does_not_match_its_commitment(copy, played):
    stream = played["stream"]
    version = first(copy, stream, "SeedRevealed")
    edit(copy, stream, version, lambda d: d.update(server_seed="00" * 32))
    found = failures(copy, played["hand"])
    assert found["deck.commitment"] == {"stream": stream, "version": version}


def test_who_may_replay_and_verify(client, played, new_player):
    hand = played["hand"]
    player = played["players"][0]
    for what in ("replay", "verification"):
        assert client.get(f"/v1/hands/{hand}/{what}", headers=player.auth).status_code == 200
        outsider = new_player("Out")
        r = client.get(f"/v1/hands/{hand}/{what}", headers=outsider.auth)
        assert r.status_code == 403 and r.headers["Content-Type"] == "application/problem+json"
        assert client.get(f"/v1/hands/hd_nope/{what}", headers=OPERATOR).status_code == 404
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"]
    full = client.get(f"/v1/hands/{hand}/verification", headers=bearer(auditor)).json
    order = next(c for c in full["checks"] if c["name"] == "deck.order")
    assert order["evidence"]["recomputed"]
    mine = client.get(f"/v1/hands/{hand}/verification", headers=player.auth).json
    # A player gets no seed nor card: why a check failed, and how many cards were counted.
    assert all(set(c["evidence"]) <= {"reason", "summary"} for c in mine["checks"])
    dealt = next(c for c in mine["checks"] if c["name"] == "deck.dealt")
    assert dealt["evidence"]["summary"] == next(
        c for c in full["checks"] if c["name"] == "deck.dealt")["evidence"]["summary"]
    steps = client.get(f"/v1/hands/{hand}/replay", headers=bearer(auditor)).json["steps"]
    assert steps[0]["type"] == "HandBegan" and steps[0]["cause"]["command"]["name"] == "OpenHand"
    # Every step names its command, the worker's settlement too (recorded by name alone).
    names = [s["cause"]["command"]["name"] for s in steps]
    assert "Act" in names and names[-1] == "SettleHand"
    assert steps[-1]["state"] is not None


def dicts(value: Any) -> Iterator[dict[str, Any]]:
    """Every object anywhere in a JSON value."""
    if isinstance(value, dict):
        yield value
        value = list(value.values())
    if isinstance(value, list):
        for v in value:
            yield from dicts(v)


def test_a_replay_shows_each_total_with_its_display_only_where_it_may(client, played):
    """A replay's totals (7½'s half-points) carry their display form, in the events' data and in
    the states, made from what the caller may see: a hidden card's hand shows neither."""
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"]
    for auth in [bearer(auditor), *(p.auth for p in played["players"])]:
        steps = client.get(f"/v1/hands/{played['hand']}/replay", headers=auth).json["steps"]
        shown = {"data": 0, "state": 0}
        for step in steps:
            for part in shown:
                for d in dicts(step[part]):
                    if None in d.get("cards", ()):
                        assert "total" not in d and "total_display" not in d, d
                    if isinstance(d.get("total"), int):
                        assert d["total_display"] == points(d["total"]), d
                        shown[part] += 1
        assert shown["data"] and shown["state"], shown  # the results, the hands


@pytest.mark.parametrize(("game", "options", "buy_in"), [
    ("sette-e-mezzo", {"banker": "lot"}, 60), ("cassino", {"variant": "draw"}, 30),
    ("pirate-pairs", {"stake": 2}, 20)])
def test_later_hands_verify_from_the_hand_before(app, client, new_player, worker, game, options,
                                                 buy_in):
    """`start` is given the previous hand's final state: banker rotation, Cassino's next round."""
    session = Session(client, game, [new_player(f"L{i}", deposit=100) for i in range(3)])
    session.open(options, buy_in)
    for _ in range(3):
        if client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json["status"] != "open":
            break
        hand_id = session.deal()
        session.play_hand()
        session.wait_settled(hand_id)
    with app.extensions["banco.pool"].connection() as conn:
        table = load_table(conn, session.table_id)
        assert table is not None
        reports = list(verify_table(conn, table))
    assert len(reports) >= 2 or game == "pirate-pairs"
    assert [r["hand_id"] for r in reports if not r["passed"]] == []


def test_a_hand_in_play_is_for_auditors_only(client, new_player, worker):
    session = Session(client, "sette-e-mezzo", [new_player(f"U{i}", deposit=100) for i in range(2)])
    session.open({}, 50)
    hand_id = session.deal()
    auditor = bearer(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])
    stranger = new_player("Stranger")
    for what in ("replay", "verification", "evidence"):
        r = client.get(f"/v1/hands/{hand_id}/{what}", headers=session.players[0].auth)
        assert r.status_code == 403 and r.json["code"] == "hand_not_settled"
        # Someone else's hand is refused before its state is told.
        r = client.get(f"/v1/hands/{hand_id}/{what}", headers=stranger.auth)
        assert r.status_code == 403 and r.json["code"] == "forbidden", r.json
        assert client.get(f"/v1/hands/{hand_id}/{what}", headers=OPERATOR).status_code == 403
        assert until_covered(lambda: client.get(f"/v1/hands/{hand_id}/{what}",  # noqa: B023
                                                headers=auditor)).status_code == 200
    found = client.get(f"/v1/hands/{hand_id}/verification", headers=auditor).json
    assert found["passed"] and not found["settled"]


def test_a_log_cut_short_fails_the_chain_at_its_last_event(copy, played):
    """The stream says it holds one more event than the log gives: its head is no link of it."""
    stream = played["stream"]
    last = copy.execute("SELECT max(version) FROM events WHERE stream_id = %s", (stream,)).fetchone()[0]
    copy.execute("DELETE FROM events WHERE stream_id = %s AND version = %s", (stream, last))
    found = failures(copy, played["hand"])
    assert found["integrity.chain"] == {"stream": stream, "version": last - 1}


def test_a_table_written_while_it_is_verified_passes_on_what_was_read(copy, played):
    """`banco verify --all` read a live table's events, then its stream's head in another
    statement: a move in between failed the chain ("the stream's head is not the last link").
    What was read is checked as the beginning of the stream; what came after, at the next read."""
    stream = played["stream"]
    table = load_table(copy, stream[len("table-"):])
    assert table is not None
    n = len(table.events)
    later = bytes(32)  # written behind the verifier's back: no true link, read next time
    copy.execute("INSERT INTO events (position, stream_id, version, type, data, metadata,"
                 " recorded_at, hash) OVERRIDING SYSTEM VALUE SELECT (SELECT max(position) + 1"
                 " FROM events), stream_id, %s, type, data, metadata, recorded_at, %s"
                 " FROM events WHERE stream_id = %s AND type = 'DeadlineSet' LIMIT 1",
                 (n + 1, later, stream))
    copy.execute("UPDATE streams SET version = %s, head = %s WHERE stream_id = %s",
                 (n + 1, later, stream))
    reports = list(verify_table(copy, table))
    assert reports and all(r["passed"] for r in reports), [
        c for r in reports for c in r["checks"] if not c["passed"]]
    assert failures(copy, played["hand"]) == {"integrity.chain": {"stream": stream, "version": n + 1}}
