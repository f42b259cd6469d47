"""Writes that name no version wait for each other instead of failing on their append.

A join, a leave, a deal, a close or a dispute's note is decided on what the stream holds when
it is done, not on a version its sender read: two sent at once are done one after the other
(`UnitOfWork.queue_behind`). Before, the second failed with a 409 `version_conflict` telling
its sender to reload, though he had read nothing to reload.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from flask import Flask

from tests.service.conftest import OPERATOR
from tests.service.test_rules_versions import new_table, play_hand, players


def at_once(app: Flask, requests: list[Callable[[Any], Any]]) -> list[Any]:
    """Each request sent from a client of its own, all released together; their answers."""
    barrier = threading.Barrier(len(requests))
    answers: list[Any] = [None] * len(requests)

    def send(i: int) -> None:
        client = app.test_client()
        barrier.wait()
        answers[i] = requests[i](client)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(requests))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_players_joining_at_once_are_all_seated(app, client, new_player):
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json
    joiners = [new_player(f"J{i}", deposit=100) for i in range(6)]
    answers = at_once(app, [
        lambda c, p=p: c.post(f"/v1/tables/{table['id']}/seats", json={"buy_in": 20}, headers=p.auth)
        for p in joiners])
    assert [r.status_code for r in answers] == [201] * 6, [r.json for r in answers]
    assert sorted(r.json["seat"] for r in answers) == list(range(6))
    seats = client.get(f"/v1/tables/{table['id']}", headers=OPERATOR).json["seats"]
    assert sorted(s["player_id"] for s in seats) == sorted(p.id for p in joiners)


def test_leaves_and_a_close_sent_at_once_are_each_done_or_refused_for_what_they_found(
        app, client, new_player):
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json
    seated = [new_player(f"L{i}", deposit=100) for i in range(4)]
    for p in seated:
        assert client.post(f"/v1/tables/{table['id']}/seats", json={"buy_in": 30},
                           headers=p.auth).status_code == 201
    path = f"/v1/tables/{table['id']}"
    leaves: list[Callable[[Any], Any]] = [
        lambda c, p=p: c.delete(f"{path}/seats/{p.id}", headers=p.auth) for p in seated[:3]]
    answers = at_once(app, [*leaves, lambda c: c.post(f"{path}/close", headers=OPERATOR)])
    *left, closed = answers
    assert closed.status_code == 200, closed.json
    # A leave after the close finds its seat cashed out already; none is told to reload.
    assert all(r.status_code == 200 or (r.status_code, r.json["code"]) == (404, "not_seated")
               for r in left), [r.json for r in left]
    # Whichever came first, every seat went home with its 30 exactly once.
    for p in seated:
        assert client.get(f"/v1/players/{p.id}/balance", headers=p.auth).json["balance"] == 100
    assert client.get(path, headers=OPERATOR).json["status"] == "over"


def test_notes_added_to_a_dispute_at_once_are_all_kept(app, client):
    banker, bettor = players(client)
    table = new_table(client, banker, bettor)
    hand_id = play_hand(app, client, table["id"], banker, bettor, bet=5)
    opened = client.post("/v1/disputes", json={"hand_id": hand_id, "reason": "why"},
                         headers=bettor.auth)
    assert opened.status_code == 201, opened.json
    path = f"/v1/disputes/{opened.json['id']}/evidence"
    answers = at_once(app, [
        lambda c, i=i, p=p: c.post(path, json={"note": f"note {i}"}, headers=p.auth)
        for i, p in enumerate([banker, bettor] * 4)])
    assert [r.status_code for r in answers] == [201] * 8, [r.json for r in answers]
    dispute = client.get(f"/v1/disputes/{opened.json['id']}", headers=OPERATOR).json
    assert sorted(e["note"] for e in dispute["evidence"]) == [f"note {i}" for i in range(8)]
