"""A table's seats as people know them: each with its player's name and a chair kept while he
sits; the operator's close; the tables a player sits at."""

from __future__ import annotations

from projections import tables
from projections.table_fold import fold
from service.verification.hand_log import read_stream
from service.verification.verify import verify_hand
from tests.service.conftest import OPERATOR
from tests.service.play import Session
from tests.service.tamper import edit, log_copy
from workers.jobs import STRANDED


def _table(client, new_player, names, buy_in=20):
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
    players = [new_player(n, deposit=50) for n in names]
    for p in players:
        r = client.post(f"/v1/tables/{table}/seats", json={"buy_in": buy_in}, headers=p.auth)
        assert r.status_code == 201, r.json
    return table, players


def _seats(client, table, auth=OPERATOR):
    return client.get(f"/v1/tables/{table}", headers=auth).json["seats"]


def test_seats_show_names_and_an_erased_player_as_null(client, new_player):
    table, (ada, bob) = _table(client, new_player, ["Ada", "Bob"])
    # Bob reads Ada's name at the table, though GET /v1/players/{ada} is not his to read.
    assert client.get(f"/v1/players/{ada.id}", headers=bob.auth).status_code == 403
    seen = _seats(client, table, bob.auth)
    assert [(s["name"], s["player_id"]) for s in seen] == [("Ada", ada.id), ("Bob", bob.id)]
    assert set(seen[0]) == {"seat", "chair", "player_id", "name", "balance"}
    assert client.post(f"/v1/players/{ada.id}/erasure", headers=OPERATOR).status_code == 200
    assert [s["name"] for s in _seats(client, table, bob.auth)] == [None, "Bob"]


def test_chairs_stay_when_a_player_leaves_and_the_events_do_not_name_them(client, new_player, app):
    table, (_, bea, _) = _table(client, new_player, ["Ann", "Bea", "Cal"])
    assert client.delete(f"/v1/tables/{table}/seats/{bea.id}", headers=bea.auth).status_code == 200
    dan = new_player("Dan", deposit=50)
    assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 20},
                       headers=dan.auth).status_code == 201
    seats = _seats(client, table)
    # Seats are the hand's order, 0..n-1 (the engines index them); chairs are where people sit:
    # Cal kept his, Dan took the one Bea left.
    assert [(s["name"], s["seat"], s["chair"]) for s in seats] == [
        ("Ann", 0, 0), ("Cal", 1, 2), ("Dan", 2, 1)]
    dealt = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR)
    assert dealt.status_code == 201
    with app.extensions["banco.pool"].connection() as c:
        events = read_stream(c, f"table-{table}")
        live = tables.load(c, table)
    for e in events:
        if e.type == "PlayerSeated":
            assert "chair" not in e.data
        if e.type == "HandBegan":
            assert all(set(s) == {"seat", "player_id", "age", "seed"} for s in e.data["seats"])
    # The table replayed from its events sits everyone in the same chairs.
    rebuilt, hands = fold(events)
    assert live is not None and rebuilt.seats == live.seats
    assert all("chair" not in s for s in hands[0]["seats"])


def test_the_operator_closes_a_table_between_hands(client, new_player):
    table, _ = _table(client, new_player, ["Ada", "Bob"])
    assert client.post("/v1/tables/tb_none/close", headers=OPERATOR).status_code == 404
    assert client.post(f"/v1/tables/{table}/hands", headers=OPERATOR).status_code == 201
    refused = client.post(f"/v1/tables/{table}/close", headers=OPERATOR)
    assert (refused.status_code, refused.json["code"]) == (409, "hand_in_play")
    assert client.get(f"/v1/tables/{table}", headers=OPERATOR).json["status"] == "playing"

    table, (cy, di) = _table(client, new_player, ["Cy", "Di"], buy_in=30)
    version = client.get(f"/v1/tables/{table}", headers=OPERATOR).json["version"]
    closed = client.post(f"/v1/tables/{table}/close", headers=OPERATOR)
    assert closed.status_code == 200, closed.json
    assert closed.json["status"] == "over" and closed.json["seats"] == []
    assert closed.headers["ETag"] == f'"{closed.json["version"]}"' and closed.json["version"] > version
    for p in (cy, di):  # every seat cashed out to its wallet
        assert client.get(f"/v1/players/{p.id}/balance", headers=p.auth).json["balance"] == 50
    events = client.get(f"/v1/tables/{table}/events", headers=OPERATOR).json["items"]
    assert [e["data"] for e in events if e["type"] == "TableEnded"] == [{"reason": "closed"}]
    again = client.post(f"/v1/tables/{table}/close", headers=OPERATOR)
    assert (again.status_code, again.json["code"]) == (409, "table_over")


def test_a_player_lists_the_tables_he_sits_at(client, new_player):
    mine, (me, _) = _table(client, new_player, ["Me", "You"])
    other, _ = _table(client, new_player, ["Them"])
    listed = client.get(f"/v1/tables?player={me.id}", headers=me.auth).json["items"]
    assert [t["id"] for t in listed] == [mine]
    assert [t["id"] for t in client.get(f"/v1/tables?player={me.id}", headers=OPERATOR)
            .json["items"]] == [mine]
    stranger = new_player("Stranger")
    refused = client.get(f"/v1/tables?player={me.id}", headers=stranger.auth)
    assert refused.status_code == 403
    assert other not in [t["id"] for t in listed]


def test_a_leave_retried_with_its_idempotency_key_is_answered_as_the_first_and_leaves_once(
        client, new_player, app):
    """A leave whose answer was lost, sent again with the same key, gets the first answer back
    (not a 404 not_seated) and cashes out once; without a key, the retry is the 404; the key
    with another request is a 422."""
    table, (ann, bea) = _table(client, new_player, ["Ann", "Bea"])
    path = f"/v1/tables/{table}/seats/{bea.id}"
    key = {**bea.auth, "Idempotency-Key": "leave-1"}
    first = client.delete(path, headers=key)
    assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
    again = client.delete(path, headers=key)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json == first.json == {"player_id": bea.id, "cash_out": 20}
    with app.extensions["banco.pool"].connection() as c:
        events = read_stream(c, f"table-{table}")
    assert [e.data["player_id"] for e in events if e.type == "PlayerLeft"] == [bea.id]
    assert client.get(f"/v1/players/{bea.id}/balance", headers=bea.auth).json["balance"] == 50
    assert client.delete(path, headers=bea.auth).json["code"] == "not_seated"
    others = path.replace(bea.id, ann.id)
    # Unseating Ann is not Bea's to do, whatever key she sends (it was a 422 on her key's use).
    refused = client.delete(others, headers={**bea.auth, "Idempotency-Key": "leave-1"})
    assert refused.status_code == 403 and refused.json["code"] == "forbidden", refused.json
    reused = client.post(f"/v1/tables/{table}/seats", json={"buy_in": 20},
                         headers={**bea.auth, "Idempotency-Key": "leave-1"})
    assert reused.status_code == 422 and reused.json["code"] == "idempotency_key_reused"
    # A key is the caller's own: the same one sent by Ann is hers, new.
    assert client.delete(others, headers={**ann.auth, "Idempotency-Key": "leave-1"}).status_code == 200


def test_a_cassino_game_closed_between_rounds_gives_every_stake_back(client, new_player, app,
                                                                     worker, database_url):
    """A Cassino game's pot goes to its winner (../shared/seeds/003_37d90c873e067319.txt): a
    table closed before anyone has won returns each stake to the seat that paid it, then cashes
    the seats out, so nothing is left in the ended table's accounts."""
    players = [new_player(n, deposit=100) for n in ("Ann", "Ben")]
    session = Session(client, "cassino", players)
    session.open({"variant": "classic", "stake": 5}, 20)
    hand = session.deal()
    session.play_hand()
    session.wait_settled(hand)
    table = session.table_id
    between = client.get(f"/v1/tables/{table}", headers=OPERATOR).json
    assert between["status"] == "open" and between["view"]["pot"] == 10
    # The players may not leave a game in progress; the operator may close the table.
    left = client.delete(f"/v1/tables/{table}/seats/{players[0].id}", headers=players[0].auth)
    assert (left.status_code, left.json["code"]) == (409, "hand_in_play")
    closed = client.post(f"/v1/tables/{table}/close", headers=OPERATOR)
    assert closed.status_code == 200 and closed.json["status"] == "over", closed.json
    for p in players:
        assert client.get(f"/v1/players/{p.id}/balance", headers=p.auth).json["balance"] == 100
    with app.extensions["banco.pool"].connection() as c:
        events = read_stream(c, f"table-{table}")
        held = dict(c.execute("SELECT account, balance FROM balances WHERE account LIKE %s",
                              (f"%:{table}:%",)).fetchall())
        stranded = c.execute(STRANDED).fetchall()
    returned = [e.data for e in events if e.type == "TreasurePosted"
                and e.data["reason"] == "stake_returned"]
    assert returned == [{"from": f"pot:{table}:pot", "to": f"seat:{table}:{p.id}", "amount": 5,
                         "reason": "stake_returned", "table": table, "hand": None}
                        for p in players]
    assert set(held.values()) == {0} and f"pot:{table}:pot" in held
    assert not [a for a, _ in stranded if table in a]
    # Returned after the round, not as part of it: the round still verifies as it settled, and
    # its settlement's check recomputes what the table's end gave back.
    verified = client.get(f"/v1/hands/{hand}/verification", headers=OPERATOR).json
    assert verified["passed"] is True, verified
    with app.extensions["banco.pool"].connection() as c:
        audited = verify_hand(c, hand)  # the evidence an auditor reads
    assert audited is not None and audited["passed"] is True
    [settlement] = [c for c in audited["checks"] if c["name"] == "money.settlement"]
    assert settlement["evidence"]["returned"] == [{k: r[k] for k in ("from", "to", "amount", "reason")}
                                                  for r in returned]
    rebuilt, _ = fold(events)
    assert rebuilt.status == "over" and rebuilt.seats == []
    # Given back to the wrong seat, or not given back at all, the check names where.
    stream = f"table-{table}"
    refunds = [e.version for e in events if e.type == "TreasurePosted"
               and e.data["reason"] == "stake_returned"]
    [ended] = [e.version for e in events if e.type == "TableEnded"]
    to_ann = {refunds[1]: lambda d: d.update(to=f"seat:{table}:{players[0].id}")}
    as_cash_out = {v: lambda d: d.update(reason="cash_out") for v in refunds}
    for edits, at in ((to_ann, refunds[1]), (as_cash_out, ended)):
        with log_copy(database_url) as copy:
            for version, change in edits.items():
                edit(copy, stream, version, change)
            report = verify_hand(copy, hand)
            assert report is not None
            failed = {c["name"]: c["event"] for c in report["checks"] if not c["passed"]}
            assert failed["money.settlement"] == {"stream": stream, "version": at}, failed
