"""The table API's rules: versions, permissions, bad input, concurrency, settlement, leaving."""

from __future__ import annotations

import threading

import pytest

from projections.table_fold import fold
from service.http.app import create_app
from service.verification.hand_log import read_stream
from tests.service.conftest import OPERATOR, bearer, jobs_on
from tests.service.play import Session
from tests.service.test_worker import run_worker


def table_of(client, session, player=None):
    return client.get(f"/v1/tables/{session.table_id}", headers=(player.auth if player else OPERATOR))


def seated(client, new_player, game="sette-e-mezzo", players=3, buy_in=50, options=None):
    session = Session(client, game, [new_player(f"P{i}", deposit=100) for i in range(players)])
    session.open(options or {}, buy_in)
    return session


def mover(client, session):
    for p in session.players:
        r = table_of(client, session, p)
        if r.json["legal_actions"]:
            return p, r.json
    raise AssertionError("nobody may act")


def test_games_lists_every_game_with_its_options(client, new_player):
    p = new_player()
    games = {g["name"]: g for g in client.get("/v1/games", headers=p.auth).json}
    assert set(games) == {"sette-e-mezzo", "siete-y-media", "casino-pirate", "pirate-pairs", "cassino"}
    assert set(games["cassino"]["variants"]) == {"classic", "spades", "draw"}
    assert games["sette-e-mezzo"]["options"]["banker_stand_at"]["default"] == 5
    assert games["casino-pirate"]["options"]["buy_in"]["default"] == 10
    assert games["sette-e-mezzo"]["max_players"] == 12


@pytest.mark.parametrize(("body", "code"), [
    ({"game": "poker"}, "unknown_game"),
    ({"game": "sette-e-mezzo", "options": {"min_bet": "x"}}, "invalid_options"),
    ({"game": "sette-e-mezzo", "options": {"nonsense": 1}}, "invalid_options"),
    ({"game": "cassino", "variant": "blitz"}, "unknown_variant"),
    ({"game": "sette-e-mezzo", "colour": "red"}, "invalid_input"),
    ({}, "invalid_input"),
])
def test_bad_tables_are_refused(client, body, code):
    r = client.post("/v1/tables", json=body, headers=OPERATOR)
    assert r.status_code == 422 and r.json["code"] == code
    assert r.headers["Content-Type"] == "application/problem+json"


def test_actions_need_a_current_if_match(client, new_player):
    session = seated(client, new_player)
    session.deal()
    p, table = mover(client, session)
    action = session.payload(table["legal_actions"][0])
    url = f"/v1/tables/{session.table_id}/actions"
    assert client.post(url, json=action, headers=p.auth).status_code == 428
    stale = client.post(url, json=action, headers={**p.auth, "If-Match": f'"{table["version"] - 1}"'})
    assert stale.status_code == 412 and stale.json["code"] == "stale_version"
    assert table_of(client, session, p).json["version"] == table["version"]
    ok = client.post(url, json=action, headers={**p.auth, "If-Match": f'"{table["version"]}"'})
    assert ok.status_code == 200 and ok.json["version"] > table["version"]
    assert ok.headers["ETag"] == f'"{ok.json["version"]}"'


def test_illegal_moves_and_other_seats_are_refused(client, new_player):
    session = seated(client, new_player)
    session.deal()
    p, table = mover(client, session)
    url = f"/v1/tables/{session.table_id}/actions"
    match = {"If-Match": f'"{table["version"]}"'}
    bad = client.post(url, json={"type": "fly"}, headers={**p.auth, **match})
    assert bad.status_code == 422 and bad.json["code"] == "bad_action"
    other = next(o for o in session.players if o is not p)
    r = client.post(url, json=session.payload(table["legal_actions"][0]), headers={**other.auth, **match})
    assert r.status_code == 422 and r.json["code"] in ("not_your_turn", "wrong_phase")
    me = table["you"]
    r = client.post(url, json={**session.payload(table["legal_actions"][0]), "seat": (me + 1) % 3},
                    headers={**p.auth, **match})
    assert r.status_code == 403 and r.json["code"] == "not_your_seat"
    # A seat is a whole number: what only compares equal to one names none (`true == 1`).
    for named in (float(me), me == 1, str(me), None):
        r = client.post(url, json={**session.payload(table["legal_actions"][0]), "seat": named},
                        headers={**p.auth, **match})
        assert r.status_code == 422 and r.json["code"] == "invalid_input", (named, r.json)
        assert "seat" in r.json["errors"]["json"], r.json
    stranger = new_player("Stranger")
    r = client.post(url, json={"type": "stand"}, headers={**stranger.auth, **match})
    assert r.status_code == 403 and r.json["code"] == "not_seated"
    assert table_of(client, session).json["version"] == table["version"]


def test_two_clients_acting_at_once_one_wins(app, client, new_player):
    session = seated(client, new_player)
    session.deal()
    p, table = mover(client, session)
    action = session.payload(table["legal_actions"][0])
    statuses: list[int] = []
    barrier = threading.Barrier(4)

    def act() -> None:
        c = app.test_client()
        barrier.wait()
        r = c.post(f"/v1/tables/{session.table_id}/actions", json=action,
                   headers={**p.auth, "If-Match": f'"{table["version"]}"'})
        statuses.append(r.status_code)

    threads = [threading.Thread(target=act) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses.count(200) == 1
    assert all(s in (409, 412, 422) for s in statuses if s != 200)
    after = table_of(client, session).json
    events = client.get(f"/v1/tables/{session.table_id}/events", query_string={"limit": 1000},
                        headers=OPERATOR).json
    assert events["items"][-1]["version"] == after["version"]


def at_a_hit(client, session):
    """Bet until a player may `hit`: a move he may repeat, so two copies of it could both apply."""
    for _ in range(20):
        p, table = mover(client, session)
        if any(a["type"] == "hit" for a in table["legal_actions"]):
            return p, table
        r = client.post(f"/v1/tables/{session.table_id}/actions",
                        json=session.payload(table["legal_actions"][0]),
                        headers={**p.auth, "If-Match": f'"{table["version"]}"'})
        assert r.status_code == 200, r.json
    raise AssertionError("nobody came to hit")


@pytest.mark.parametrize(("form", "applied", "refusal"), [
    ('"{v}"', 1, 412),
    # If-Match is compared strongly (RFC 9110): a weak tag, or a version not quoted as an
    # entity-tag is, matches none (each applied a copy).
    ("{v}", 0, 428), ('W/"{v}"', 0, 428), ('w/"{v}"', 0, 428),
    ("*", 0, 428), ('"{v}", *', 0, 428), ('"{p}", "{v}"', 0, 428), ("", 0, 428),
    ("garbage", 0, 428), ('"{v}" junk', 0, 428), ('"{p}"', 0, 412),
    # One strong tag that is not the version, character for character, matches none (a
    # leading zero applied a copy; a tag that is no number was a 428).
    ('"0{v}"', 0, 412), ('"{v}x"', 0, 412),
    ('""', 0, 428), ('W/""', 0, 428),  # an empty tag names no version (it was a 500)
    # A list is no one version even when its tags are the same (it applied a copy at each).
    ('"{v}", "{v}"', 0, 428), ('"{v}", W/"{v}"', 0, 428), ('"{v}", ""', 0, 428),
])
def test_copies_of_an_action_apply_once_whatever_the_if_match(app, client, new_player, form,
                                                               applied, refusal):
    """Eight copies of one `hit` at once: the one that names the table's version applies and the
    others are 412; `*`, a list or no version at all applied a copy at each version it found (four
    of eight), and is now a 428 like a missing If-Match, for every copy."""
    session = seated(client, new_player)
    session.deal()
    p, table = at_a_hit(client, session)
    header = form.format(v=table["version"], p=table["version"] - 1)
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def act() -> None:
        c = app.test_client()
        barrier.wait()
        r = c.post(f"/v1/tables/{session.table_id}/actions", json={"type": "hit"},
                   headers={**p.auth, "If-Match": header})
        statuses.append(r.status_code)
        if r.status_code != 200:
            assert r.headers["Content-Type"] == "application/problem+json"

    threads = [threading.Thread(target=act) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses.count(200) == applied, statuses
    # The copies that lost the race to the first may see its commit (412) or not yet (409).
    assert all(s in ((409, 412) if applied else (refusal,)) for s in statuses if s != 200), statuses
    with app.extensions["banco.pool"].connection() as c:
        acts = c.execute("SELECT count(DISTINCT metadata->>'request_id') FROM events"
                         " WHERE stream_id = %s AND version > %s"
                         " AND metadata->'command'->>'name' = 'Act'",
                         (f"table-{session.table_id}", table["version"])).fetchone()[0]
    assert acts == applied


def test_parallel_buy_ins_never_overdraw_a_wallet(app, client, new_player):
    rich = new_player("Rich", deposit=100)
    tables = [client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
              for _ in range(6)]
    statuses: list[int] = []

    def join(table_id: str) -> None:
        r = app.test_client().post(f"/v1/tables/{table_id}/seats", json={"buy_in": 30},
                                   headers=rich.auth)
        statuses.append(r.status_code)

    threads = [threading.Thread(target=join, args=(t,)) for t in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses.count(201) == 3 and statuses.count(422) == 3
    assert client.get(f"/v1/players/{rich.id}/balance", headers=OPERATOR).json["balance"] == 10


def test_a_retried_action_applies_once(client, new_player):
    session = seated(client, new_player)
    session.deal()
    p, table = mover(client, session)
    action = session.payload(table["legal_actions"][0])
    headers = {**p.auth, "If-Match": f'"{table["version"]}"', "Idempotency-Key": "act-once"}
    first = client.post(f"/v1/tables/{session.table_id}/actions", json=action, headers=headers)
    again = client.post(f"/v1/tables/{session.table_id}/actions", json=action, headers=headers)
    assert first.status_code == again.status_code == 200 and first.data == again.data
    assert again.headers["Idempotent-Replayed"] == "true"
    assert table_of(client, session).json["version"] == first.json["version"]


def test_a_finished_hand_shows_settling_until_a_worker_settles_it_once(config, new_player, monkeypatch):
    """A queue with no worker on it: the hand waits, settled exactly once when one comes."""
    quiet = type(config)(**{**config.__dict__, "queue_name": config.queue_name + "-quiet"})
    app = create_app(quiet)
    try:
        client = app.test_client()
        session = Session(client, "pirate-pairs", [new_player(f"Q{i}", deposit=100) for i in range(2)])
        session.open({"stake": 10}, 40)
        hand_id = session.deal()
        session.play_hand()
        assert client.get(f"/v1/hands/{hand_id}", headers=OPERATOR).json["status"] == "settling"
        assert table_of(client, session).json["status"] == "settling"
        assert run_worker(quiet).returncode == 0
        hand = client.get(f"/v1/hands/{hand_id}", headers=OPERATOR).json
        assert hand["status"] == "settled" and hand["server_seed"]
        version = table_of(client, session).json["version"]
        from workers import settlement

        with jobs_on(config):
            assert settlement.settle_hand(session.table_id, hand_id) is False  # a second run: nothing
        assert table_of(client, session).json["version"] == version
        over = table_of(client, session).json
        assert over["status"] == "over" and over["seats"] == []
        wallets = [client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"]
                   for p in session.players]
        assert sorted(wallets) == [90, 110]
    finally:
        app.extensions["banco.pool"].close()


def test_leaving_between_hands_returns_the_seat_to_the_wallet(client, new_player):
    session = seated(client, new_player, players=3, buy_in=40)
    leaver = session.players[1]
    r = client.delete(f"/v1/tables/{session.table_id}/seats/{leaver.id}", headers=leaver.auth)
    assert r.status_code == 200 and r.json == {"player_id": leaver.id, "cash_out": 40}
    assert client.get(f"/v1/players/{leaver.id}/balance", headers=leaver.auth).json["balance"] == 100
    seats = table_of(client, session).json["seats"]
    assert [s["seat"] for s in seats] == [0, 1]
    assert [s["player_id"] for s in seats] == [session.players[0].id, session.players[2].id]
    other = session.players[0]
    r = client.delete(f"/v1/tables/{session.table_id}/seats/{other.id}", headers=leaver.auth)
    assert r.status_code == 403


def test_several_hands_at_one_table(client, new_player, worker):
    session = seated(client, new_player, players=4, buy_in=60)
    for number in (1, 2, 3):
        hand_id = session.deal()
        session.play_hand()
        assert session.wait_settled(hand_id)["number"] == number
    path = f"/v1/tables/{session.table_id}/hands"
    hands = client.get(path, headers=OPERATOR).json["items"]
    assert [h["number"] for h in hands] == [1, 2, 3]
    assert all(h["status"] == "settled" and h["server_seed"] for h in hands)
    # Pages: `next_cursor` is the `cursor` of the next page, as of every list, None on the
    # last; `after`, which the clients of before page with, is the same place.
    first = client.get(path, query_string={"limit": 2}, headers=OPERATOR).json
    assert [h["number"] for h in first["items"]] == [1, 2] and first["next_cursor"] == 2
    for place in ("cursor", "after"):
        r = client.get(path, query_string={"limit": 2, place: first["next_cursor"]},
                       headers=OPERATOR)
        assert r.status_code == 200, (place, r.json)
        assert [h["number"] for h in r.json["items"]] == [3] and r.json["next_cursor"] is None
    assert client.get(path, query_string={"cursor": 0}, headers=OPERATOR).json["items"] == hands
    # Both at once name two places, which may differ: refused.
    r = client.get(path, query_string={"cursor": 2, "after": 2}, headers=OPERATOR)
    assert r.status_code == 422 and r.json["code"] == "invalid_input", r.json
    assert "cursor" in r.json["errors"]["query"]


PLAIN = ("bet", "stand", "call", "concede", "hide", "hit")


def play_without_seven_half(client, session):
    """A Casino pirate hand in which no 7½ is ever shown: every player stands on his first card,
    the meneur calls as soon as he may, and every called player concedes."""
    while table_of(client, session).json["status"] == "playing":
        p, table = mover(client, session)
        offered = {a["type"]: a for a in table["legal_actions"]}
        action = session.payload(offered[next(t for t in PLAIN if t in offered)])
        if action["type"] == "bet":
            action["amount"] = 1
        action.pop("declare", None)
        r = client.post(f"/v1/tables/{session.table_id}/actions", json=action,
                        headers={**p.auth, "If-Match": f'"{table["version"]}"'})
        assert r.status_code == 200, r.json


def test_a_casino_pirate_player_who_lets_the_betting_timer_run_bets_the_minimum(app, client,
                                                                                 new_player, worker):
    """RULES.md 1c (000_1414b0b0fea70c86.txt): each player dealt a card bets 1 or 2 treasures,
    and one who does not act stands. A player who let the betting timer run after seeing his
    card sat the hand out (`SatOut`), a free fold; from rules version 2 the worker's timeout bets
    `min_bet` and stands. A hand played by timeouts alone settles and verifies."""
    assert client.get("/v1/games/casino-pirate").json["rules_versions"] == [1, 2, 3, 4]
    session = seated(client, new_player, game="casino-pirate", players=3, buy_in=None,
                     options={"turn_timeout_s": 1, "banker_timeout_s": 1})
    assert table_of(client, session).json["rules_version"] == 4
    hand_id = session.deal()
    meneur = table_of(client, session).json["view"]["banker"]
    hand = session.wait_settled(hand_id)
    assert hand["rules_version"] == 4
    events = client.get(f"/v1/tables/{session.table_id}/events", query_string={"after": 0},
                        headers=OPERATOR).json["items"]
    assert not [e for e in events if e["type"] == "SatOut"]
    players = sorted({0, 1, 2} - {meneur})
    bets = {e["data"]["seat"]: e["data"]["amount"] for e in events if e["type"] == "BetPlaced"}
    assert bets == {seat: 1 for seat in players}
    assert all(e["data"]["timeout"] for e in events if e["type"] == "BetPlaced")
    stood = [e["data"] for e in events if e["type"] == "Stood" and e["data"]["index"] != -1]
    assert sorted(d["seat"] for d in stood) == players and all(d["timeout"] for d in stood)
    [ended] = [e["data"] for e in events if e["type"] == "HandEnded"]
    assert {r["seat"]: r["stake"] for r in ended["results"] if r["seat"] != meneur} == {
        seat: 1 for seat in players}
    report = client.get(f"/v1/hands/{hand_id}/verification", headers=OPERATOR).json
    assert report["passed"] and report["rules_version"] == 4, report


def test_a_casino_pirate_player_volunteers_between_hands_to_be_the_next_meneur(app, client,
                                                                                new_player, worker):
    """RULES.md 1c (000_1414b0b0fea70c86.txt): when no 7½ took the post, the meneur stays unless
    another player volunteers, between hands. `volunteer` was never offered and refused once the
    hand was over (409, no hand in play); it is now offered to the other seats while the table
    waits for its next deal, and the next meneur follows the order: a volunteer, else the same
    meneur (a leave too: below), else the oldest. Once one volunteered, the view's `next_banker`
    names him (it stayed null) and another volunteer is a 409 `volunteer_taken` (it was
    `no_hand_in_play`, as if no table were open); the meneur's own is `cannot_volunteer`."""
    session = seated(client, new_player, game="casino-pirate", players=3, buy_in=None)
    first = session.deal()
    assert table_of(client, session).json["view"]["banker"] == 2  # the oldest: ages 20, 27, 34
    play_without_seven_half(client, session)
    session.wait_settled(first)
    views = [table_of(client, session, p).json for p in session.players]
    assert views[0]["status"] == "open" and views[0]["view"]["next_banker"] is None
    assert [v["legal_actions"] for v in views] == [[{"type": "volunteer"}]] * 2 + [[]]
    url = f"/v1/tables/{session.table_id}/actions"
    meneur, volunteer, other = session.players[2], session.players[0], session.players[1]
    version = views[0]["version"]
    r = client.post(url, json={"type": "volunteer"}, headers={**meneur.auth, "If-Match": f'"{version}"'})
    assert r.status_code == 409 and r.json["code"] == "cannot_volunteer", r.json
    r = client.post(url, json={"type": "hit"}, headers={**volunteer.auth, "If-Match": f'"{version}"'})
    assert r.status_code == 409 and r.json["code"] == "no_hand_in_play"
    r = client.post(url, json={"type": "volunteer"},
                    headers={**volunteer.auth, "If-Match": f'"{version}"'})
    assert r.status_code == 200, r.json
    assert r.json["status"] == "open" and r.json["turn"] is None and r.json["legal_actions"] == []
    assert r.json["view"]["volunteers"] == [0] and r.json["version"] == version + 1
    assert r.json["view"]["next_banker"] == 0  # the post is taken: every view names him
    assert table_of(client, session, other).json["view"]["next_banker"] == 0
    # The projection replayed from the log holds the volunteer too, and the table stays open.
    with app.extensions["banco.pool"].connection() as c:
        rebuilt, _ = fold(read_stream(c, f"table-{session.table_id}"))
    assert (rebuilt.status, rebuilt.version, rebuilt.turn) == ("open", version + 1, None)
    assert rebuilt.state.volunteers == (0,)
    # One volunteer is enough: nobody else is offered the post now.
    assert table_of(client, session, other).json["legal_actions"] == []
    r = client.post(url, json={"type": "volunteer"},
                    headers={**other.auth, "If-Match": f'"{version + 1}"'})
    assert r.status_code == 409 and r.json["code"] == "volunteer_taken", r.json
    assert r.json["detail"] == "seat 0 volunteered first and is the next meneur"
    assert table_of(client, session).json["version"] == version + 1  # and nothing changed

    second = session.deal()
    assert table_of(client, session).json["view"]["banker"] == 0  # the volunteer
    play_without_seven_half(client, session)
    session.wait_settled(second)
    auditor = client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"]
    checks = client.get(f"/v1/hands/{second}/verification", headers=bearer(auditor)).json["checks"]
    assert all(c["passed"] for c in checks), checks  # the deal is `start` again, volunteer included

    third = session.deal()
    assert table_of(client, session).json["view"]["banker"] == 0  # nobody volunteered: he stays
    play_without_seven_half(client, session)
    session.wait_settled(third)
    client.delete(f"/v1/tables/{session.table_id}/seats/{other.id}", headers=other.auth)
    session.players.remove(other)
    session.deal()
    assert table_of(client, session).json["view"]["banker"] == 0  # he stays, whoever left


def test_a_leave_between_hands_keeps_the_next_meneur_and_the_tables_clock(app, client, new_player,
                                                                           worker):
    """RULES.md 1c (000_1414b0b0fea70c86.txt): the meneur named for the next hand (a 7½, a
    volunteer) is meneur for it, else the meneur stays. A leave between hands started the next
    hand as a table's first: the oldest became meneur, whoever had been named, and the table's
    `duration_s` ran again from the new deal. The seats renumbered, both now follow the players."""
    session = seated(client, new_player, game="casino-pirate", players=3, buy_in=None)
    first = session.deal()
    assert table_of(client, session).json["view"]["banker"] == 2  # the oldest: ages 20, 27, 34
    play_without_seven_half(client, session)
    session.wait_settled(first)
    leaver, volunteer, oldest = session.players
    version = table_of(client, session).json["version"]
    r = client.post(f"/v1/tables/{session.table_id}/actions", json={"type": "volunteer"},
                    headers={**volunteer.auth, "If-Match": f'"{version}"'})
    assert r.status_code == 200 and r.json["view"]["next_banker"] == 1, r.json
    assert client.delete(f"/v1/tables/{session.table_id}/seats/{leaver.id}",
                         headers=leaver.auth).status_code == 200
    session.players.remove(leaver)
    between = table_of(client, session, volunteer).json
    assert [s["player_id"] for s in between["seats"]] == [volunteer.id, oldest.id]
    assert between["view"] is None and between["legal_actions"] == []  # no hand to show
    second = session.deal()
    table = table_of(client, session, volunteer).json
    assert table["view"]["banker"] == 0 and table["you"] == 0  # the volunteer, now seat 0
    auditor = bearer(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])
    with app.extensions["banco.pool"].connection() as c:
        started = [r[0] for r in c.execute(
            "SELECT data->'data'->'table_started_at' FROM events WHERE stream_id = %s"
            " AND data->'data' ? 'table_started_at' ORDER BY version",
            (f"table-{session.table_id}",))]
    assert len(started) == 2 and started[0] == started[1]  # the table's clock ran on
    play_without_seven_half(client, session)
    session.wait_settled(second)
    checks = client.get(f"/v1/hands/{second}/verification", headers=auditor).json["checks"]
    assert all(c["passed"] for c in checks), checks  # the deal is `start` again, the leave included
    # The projection replayed from the log carries the leave's succession as the table did.
    with app.extensions["banco.pool"].connection() as c:
        rebuilt, _ = fold(read_stream(c, f"table-{session.table_id}"))
    assert rebuilt.seats == [{**s, "seat": i} for i, s in enumerate(rebuilt.seats)]
    assert rebuilt.state.banker == 0


def test_rebuilding_the_table_projection_gives_the_same_rows(app, client, new_player, worker):
    """Tables over, mid-hand, between hands and after a leave: replayed from the log alike, their
    snapshots to the byte."""
    from projections.rebuild import rebuild_all

    finished = seated(client, new_player, game="pirate-pairs", players=3, buy_in=20, options={"stake": 2})
    finished.wait_settled((finished.deal(), finished.play_hand())[0])
    between = seated(client, new_player, players=3, buy_in=50)
    between.wait_settled((between.deal(), between.play_hand())[0])
    client.delete(f"/v1/tables/{between.table_id}/seats/{between.players[0].id}", headers=OPERATOR)
    midway = seated(client, new_player, game="cassino", players=2, buy_in=20)
    midway.deal()
    p, table = mover(client, midway)
    played = client.post(f"/v1/tables/{midway.table_id}/actions", json=table["legal_actions"][0],
                         headers={**p.auth, "If-Match": f'"{table["version"]}"'})
    assert played.status_code == 200
    pool = app.extensions["banco.pool"]
    # This test's tables alone: the session's worker may meanwhile fire the deadline of another
    # test's table, which moves on between the two snapshots however right the rebuild is.
    ours = sorted(t.table_id for t in (finished, between, midway))

    def snapshot():
        with pool.connection() as c:
            rows = c.execute("SELECT table_id, game, options, status, version, seats, hand_id,"
                             " hand_number, state, turn, created_by, created_at, rules_version FROM tables"
                             " WHERE table_id = ANY(%s) ORDER BY table_id", (ours,)).fetchall()
            hands = c.execute("SELECT * FROM hands WHERE table_id = ANY(%s) ORDER BY hand_id",
                              (ours,)).fetchall()
        assert len(rows) == 3 and hands
        return rows, hands

    before = snapshot()
    with pool.connection() as c:
        rebuild_all(c)
    assert snapshot() == before
    after = table_of(client, midway).json
    assert after["status"] == "playing" and after["version"] > table["version"]


def test_tables_list_filters_and_pages(client, new_player):
    """Newest first, as documented: table ids are random, so an order by id (as the list had)
    would show these four in their creation order one time in 24 only."""
    p = new_player()
    made = [client.post("/v1/tables", json={"game": game}, headers=OPERATOR).json["id"]
            for game in ("pirate-pairs", "cassino", "pirate-pairs", "pirate-pairs", "pirate-pairs")]
    seen, cursor = [], None
    while True:
        query = {"game": "pirate-pairs", "status": "open", "limit": 1}
        if cursor:
            query["cursor"] = cursor
        page = client.get("/v1/tables", query_string=query, headers=p.auth).json
        assert all(t["game"] == "pirate-pairs" and t["status"] == "open" for t in page["items"])
        seen += [t["id"] for t in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert made[1] not in seen and len(seen) == len(set(seen))
    mine = [t for t in seen if t in made]
    assert mine == [made[4], made[3], made[2], made[0]]
    # Only a cursor the list gave goes on: another is refused, not answered with an empty page.
    r = client.get("/v1/tables", query_string={"cursor": "tb_0000000000000000"}, headers=p.auth)
    assert r.status_code == 422 and r.json["code"] == "invalid_cursor"
    # Nor does one list's cursor go on in another: `?status=over` after an open table's cursor
    # listed the tables that are over from there, a page no list gave.
    paged = [{"status": "open"}, {"game": "pirate-pairs"}, {"game": "pirate-pairs", "status": "open"},
             {}]  # each holds two of the tables made at least: a page of one has a cursor
    lists = [*paged, {"status": "over"}, {"game": "cassino"}, {"player": p.id}]
    cursors = [client.get("/v1/tables", query_string={**filters, "limit": 1},
                          headers=p.auth).json["next_cursor"] for filters in paged]
    for given, cursor in zip(paged, cursors, strict=True):
        for filters in lists:
            r = client.get("/v1/tables", query_string={**filters, "cursor": cursor, "limit": 1},
                           headers=p.auth)
            if filters == given:
                assert r.status_code == 200, (given, filters, r.json)
            else:
                assert r.status_code == 422 and r.json["code"] == "invalid_cursor", (given, filters)
    # The unfiltered list's cursor is the table's id, as it was: one a client holds goes on.
    assert cursors[-1].startswith("tb_") and "." not in cursors[-1]
    # A game that does not exist is refused, not answered with an empty list.
    r = client.get("/v1/tables", query_string={"game": "pirate-pair"}, headers=p.auth)
    assert r.status_code == 422 and r.json["code"] == "unknown_game"


def test_an_unchanged_table_answers_304(client, new_player):
    p = new_player(deposit=10)
    table = client.post("/v1/tables", json={"game": "cassino"}, headers=OPERATOR)
    etag = table.headers["ETag"]
    same = client.get(f"/v1/tables/{table.json['id']}", headers={**p.auth, "If-None-Match": etag})
    assert same.status_code == 304 and same.headers["ETag"] == etag
    joined = client.post(f"/v1/tables/{table.json['id']}/seats", json={"buy_in": 5}, headers=p.auth)
    assert joined.status_code == 201
    changed = client.get(f"/v1/tables/{table.json['id']}", headers={**p.auth, "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_seats_that_cannot_be_taken_or_left_are_refused_and_change_nothing(client, new_player):
    """Join twice, join a full table or one with a hand in play, deal with too few players, leave
    during a hand or without a seat: each a 409 (404 without a seat) problem, and the table and
    the wallets as they were."""
    before, wallets = {}, {}

    def remember(session):
        before[session.table_id] = table_of(client, session).json["version"]
        wallets[session.table_id] = [client.get(f"/v1/players/{p.id}/balance",
                                                headers=p.auth).json["balance"]
                                     for p in session.players]

    def refused(r, status, code, session):
        assert r.status_code == status and r.json["code"] == code, r.json
        assert r.headers["Content-Type"] == "application/problem+json"
        assert table_of(client, session).json["version"] == before[session.table_id]
        assert [client.get(f"/v1/players/{p.id}/balance", headers=p.auth).json["balance"]
                for p in session.players] == wallets[session.table_id]

    full = seated(client, new_player, game="cassino", players=4, buy_in=10,
                  options={"variant": "spades"})
    remember(full)
    late = new_player("Late", deposit=100)
    path = f"/v1/tables/{full.table_id}/seats"
    refused(client.post(path, json={"buy_in": 10}, headers=late.auth), 409, "table_full", full)
    refused(client.post(path, json={"buy_in": 10}, headers=full.players[0].auth), 409,
            "already_seated", full)

    alone = seated(client, new_player, players=1, buy_in=20)
    remember(alone)
    refused(client.post(f"/v1/tables/{alone.table_id}/hands", headers=OPERATOR), 409,
            "not_enough_players", alone)

    playing = seated(client, new_player, players=2, buy_in=20)
    assert client.post(f"/v1/tables/{playing.table_id}/hands", headers=OPERATOR).status_code == 201
    remember(playing)
    path = f"/v1/tables/{playing.table_id}/seats"
    refused(client.post(path, json={"buy_in": 10}, headers=late.auth), 409, "table_not_open",
            playing)
    leaver = playing.players[1]
    refused(client.delete(f"{path}/{leaver.id}", headers=leaver.auth), 409, "hand_in_play", playing)
    refused(client.delete(f"{path}/{late.id}", headers=late.auth), 404, "not_seated", playing)
    assert client.get(f"/v1/players/{late.id}/balance", headers=late.auth).json["balance"] == 100


def test_a_casino_pirate_seat_buys_in_at_exactly_the_tables_buy_in(client, new_player):
    """RULES.md 1c (000_1414b0b0fea70c86.txt): each player receives 10 treasures to stake; the
    table's `buy_in` (10 unless set) is what every seat brings. Any amount was accepted; another
    than the table's is now a 422 naming it, which moves nothing, and none asked means it."""
    table = client.post("/v1/tables", json={"game": "casino-pirate", "options": {"buy_in": 7}},
                        headers=OPERATOR).json
    path = f"/v1/tables/{table['id']}/seats"
    rich = new_player("Rich", deposit=100)
    for wrong in (10, 6, 8, 100):
        r = client.post(path, json={"buy_in": wrong}, headers=rich.auth)
        assert r.status_code == 422 and r.json["code"] == "buy_in_fixed", r.json
        assert r.json["buy_in"] == 7 and "7" in r.json["detail"]
        assert r.headers["Content-Type"] == "application/problem+json"
    assert client.get(f"/v1/tables/{table['id']}", headers=OPERATOR).json["version"] == table["version"]
    assert client.get(f"/v1/players/{rich.id}/balance", headers=rich.auth).json["balance"] == 100
    exact = client.post(path, json={"buy_in": 7}, headers=rich.auth)
    assert exact.status_code == 201
    other = new_player("Other", deposit=100)
    assert client.post(path, json={}, headers=other.auth).status_code == 201
    seats = client.get(f"/v1/tables/{table['id']}", headers=OPERATOR).json["seats"]
    assert [s["balance"] for s in seats] == [7, 7]
    default = client.post("/v1/tables", json={"game": "casino-pirate"}, headers=OPERATOR).json
    r = client.post(f"/v1/tables/{default['id']}/seats", json={"buy_in": 50}, headers=other.auth)
    assert r.status_code == 422 and r.json["buy_in"] == 10


@pytest.mark.parametrize("game", ["pirate-pairs", "cassino"])
def test_a_seat_buys_in_with_at_least_the_stake_every_player_pays(client, new_player, game):
    """RULES.md §2 and §3 (002_ae078369b503c97e.txt, 003_37d90c873e067319.txt): every player pays
    the table's `stake` into the pot at the start. A seat bought in below it was accepted, and
    every deal was then refused (Pirate pairs `insufficient_balance`, Cassino
    `balance_too_low`), the table stuck until he left. The join is now a 422 naming the minimum,
    which moves nothing; the deal's refusal is one code in both games."""
    table = client.post("/v1/tables", json={"game": game, "options": {"stake": 5}},
                        headers=OPERATOR).json
    path = f"/v1/tables/{table['id']}/seats"
    poor, rich = new_player("Poor", deposit=100), new_player("Rich", deposit=100)
    r = client.post(path, json={"buy_in": 3}, headers=poor.auth)
    assert (r.status_code, r.json["code"]) == (422, "buy_in_too_low"), r.json
    assert r.json["min_buy_in"] == 5 and "at least 5" in r.json["detail"] and "stake" in r.json["detail"]
    assert r.headers["Content-Type"] == "application/problem+json"
    assert client.get(f"/v1/tables/{table['id']}", headers=OPERATOR).json["version"] == table["version"]
    assert client.get(f"/v1/players/{poor.id}/balance", headers=poor.auth).json["balance"] == 100
    for p in (poor, rich):
        assert client.post(path, json={"buy_in": 5}, headers=p.auth).status_code == 201
    assert client.post(f"/v1/tables/{table['id']}/hands", headers=OPERATOR).status_code == 201


def test_a_sette_e_mezzo_seat_below_min_bet_is_seated_and_may_bank(client, new_player):
    """RULES.md §1a (001_6b5bbd2473d5c47f.txt): the banker bets nothing, and a player below
    `min_bet` sits the hand out, the table going on: a buy-in below `min_bet` sticks nothing, so
    it is taken (unlike Pirate pairs' and Cassino's stake, which every player pays)."""
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {"min_bet": 5}},
                        headers=OPERATOR).json["id"]
    banker, bettor = new_player("Banker", deposit=100), new_player("Bettor", deposit=100)
    for p, buy_in in ((banker, 3), (bettor, 50)):
        assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": buy_in},
                           headers=p.auth).status_code == 201
    assert client.post(f"/v1/tables/{table}/hands", headers=OPERATOR).status_code == 201
    view = client.get(f"/v1/tables/{table}", headers=bettor.auth).json
    assert view["view"]["banker"] == 0 and [a["type"] for a in view["legal_actions"]] == ["bet"]


def test_a_cassino_game_under_way_says_so_to_a_player_who_would_join(client, new_player, worker):
    """Between two rounds a Cassino table reads `open`, yet keeps its players to the game's end:
    the refusal said "players join between hands of an open table", which it was."""
    game = seated(client, new_player, game="cassino", players=2, buy_in=20)
    game.wait_settled((game.deal(), game.play_hand())[0])
    assert table_of(client, game).json["status"] == "open"
    late = new_player("Late", deposit=50)
    r = client.post(f"/v1/tables/{game.table_id}/seats", json={"buy_in": 20}, headers=late.auth)
    assert (r.status_code, r.json["code"]) == (409, "table_not_open"), r.json
    assert "under way (round 1)" in r.json["detail"] and "between hands" not in r.json["detail"]


@pytest.mark.parametrize("game", ["sette-e-mezzo", "siete-y-media"])
@pytest.mark.parametrize("buy_ins", [(3, 3), (30, 3)])
def test_a_deal_nobody_could_play_is_refused_and_changes_nothing(client, new_player, game, buy_ins):
    """RULES.md "Money in the 7½ family" (001_6b5bbd2473d5c47f.txt, 004_34f1b911eeb84e49.txt): a
    player below `min_bet` sits the hand out. With every seat but the banker's below it, each deal
    opened a hand and ended it (Siete y media's after the banker's announcement), for ever,
    committing a deck and revealing a seed for nothing, and a client dealing "when enough
    players sit" never stopped. It is a 409 `not_enough_players`, as a lone player's."""
    table = client.post("/v1/tables", json={"game": game, "options": {"min_bet": 5, "max_bet": 5}},
                        headers=OPERATOR).json["id"]
    for i, buy_in in enumerate(buy_ins):
        p = new_player(f"Short{i}", deposit=100)
        assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": buy_in},
                           headers=p.auth).status_code == 201
    before = client.get(f"/v1/tables/{table}", headers=OPERATOR).json
    refused = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR)
    assert (refused.status_code, refused.json["code"]) == (409, "not_enough_players"), refused.json
    assert "min_bet (5)" in refused.json["detail"]
    after = client.get(f"/v1/tables/{table}", headers=OPERATOR).json
    assert (after["version"], after["status"], after.get("hand")) == (
        before["version"], "open", before.get("hand"))
    # One more player who holds the minimum, and the hand is dealt.
    p = new_player("Enough", deposit=100)
    assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": 5},
                       headers=p.auth).status_code == 201
    dealt = client.post(f"/v1/tables/{table}/hands", headers=OPERATOR)
    assert dealt.status_code == 201, dealt.json


@pytest.mark.parametrize("game", ["sette-e-mezzo", "siete-y-media"])
def test_a_deal_at_a_table_that_draws_its_banker_is_refused_or_dealt_whatever_the_lot(
        client, new_player, game):
    """`banker: "lot"` (RULES.md §1a Decision, 001_6b5bbd2473d5c47f.txt): with one seat holding
    min_bet and one not, the hand is played whenever the lot names the poor seat banker. The
    refusal was decided on the lot drawn from the deal's own fresh seed, so the same deal was
    refused, then dealt, and whoever dealt could draw again until the lot suited him. It is
    decided before the seed: dealt every time, and refused every time when no seat holds it."""
    def table_of(buy_ins: tuple[int, int]) -> str:
        table = client.post("/v1/tables", json={"game": game, "options": {
            "min_bet": 5, "max_bet": 10, "banker": "lot"}}, headers=OPERATOR).json["id"]
        for i, buy_in in enumerate(buy_ins):
            p = new_player(f"Lot{i}", deposit=100)
            assert client.post(f"/v1/tables/{table}/seats", json={"buy_in": buy_in},
                               headers=p.auth).status_code == 201
        return table

    for _ in range(6):  # half of these deals drew the rich seat, and were refused
        dealt = client.post(f"/v1/tables/{table_of((5, 4))}/hands", headers=OPERATOR)
        assert dealt.status_code == 201, dealt.json
    poor = table_of((4, 4))
    for _ in range(3):
        refused = client.post(f"/v1/tables/{poor}/hands", headers=OPERATOR)
        assert (refused.status_code, refused.json["code"]) == (409, "not_enough_players")


@pytest.mark.parametrize(("game", "buy_in"), [("sette-e-mezzo", 50), ("siete-y-media", 50),
                                              ("casino-pirate", None), ("pirate-pairs", 40),
                                              ("cassino", 30)])
def test_an_action_with_a_parameter_it_does_not_take_is_refused(client, new_player, game, buy_in):
    """An action is exactly as `legal_actions` offers it. A parameter the action does not take
    (a misspelt optional one, or anything at all) was ignored, and kept in the log with the
    command; it is now a 422 that changes nothing, in every game."""
    session = seated(client, new_player, game, players=2, buy_in=buy_in)
    session.deal()
    p, table = mover(client, session)
    action = session.payload(table["legal_actions"][0])
    url = f"/v1/tables/{session.table_id}/actions"
    headers = {**p.auth, "If-Match": f'"{table["version"]}"'}
    r = client.post(url, json={**action, "amonut": 1}, headers=headers)
    assert r.status_code == 422 and r.json["code"] == "bad_action", r.json
    assert "amonut" in r.json["detail"]
    assert table_of(client, session, p).json["version"] == table["version"]
    r = client.post(url, json=action, headers=headers)
    assert r.status_code == 200, r.json


@pytest.mark.parametrize("route", ["seats", "hands"])
def test_an_if_match_list_on_a_seat_or_a_deal_is_met_by_any_of_its_tags(client, new_player, route):
    """Where If-Match is optional (a seat, a deal) it keeps RFC 9110's meaning: a list is met
    when any of its tags is the table's version, and refused with a 412 when none is, changing
    nothing; only a move needs exactly one version (above)."""
    session = seated(client, new_player, players=2)
    newcomer = new_player("Late", deposit=100)
    caller, body = (newcomer.auth, {"buy_in": 50}) if route == "seats" else (OPERATOR, None)
    version = table_of(client, session).json["version"]
    stale = client.post(f"/v1/tables/{session.table_id}/{route}", json=body,
                        headers={**caller, "If-Match": f'"{version - 1}", W/"{version + 1}"'})
    assert stale.status_code == 412, stale.json
    assert stale.headers["Content-Type"] == "application/problem+json"
    assert table_of(client, session).json["version"] == version
    met = client.post(f"/v1/tables/{session.table_id}/{route}", json=body,
                      headers={**caller, "If-Match": f'"{version - 1}", "{version}"'})
    assert met.status_code == 201, met.json
    assert table_of(client, session).json["version"] > version
