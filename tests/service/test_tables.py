"""Every game played end to end over HTTP by separate player clients, settled by a real worker."""

from __future__ import annotations

import pytest

from events.catalog import GAME_EVENT_PREFIX
from events.game_records import engine_event
from service.application import handlers
from service.application.postgres_unit_of_work import transaction
from tests.service.conftest import OPERATOR, bearer
from tests.service.play import Session, leaks

GAMES = [
    ("sette-e-mezzo", {}, 50, 4), ("siete-y-media", {}, 50, 3), ("casino-pirate", {}, None, 4),
    ("pirate-pairs", {"stake": 5}, 40, 4), ("cassino", {"variant": "classic"}, 30, 2),
    ("cassino", {"variant": "spades", "stake": 3}, 30, 4), ("cassino", {"variant": "draw"}, 30, 3),
]


@pytest.fixture
def auditor(client) -> str:
    return str(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])


def totals(app) -> tuple[int, int]:
    with app.extensions["banco.pool"].connection() as c:
        return c.execute("SELECT sum(balance), count(*) FILTER (WHERE balance < 0 AND"
                         " account <> 'house:issued') FROM balances").fetchone()


@pytest.mark.parametrize(("game", "options", "buy_in", "players"), GAMES,
                         ids=[f"{g}-{o.get('variant', '')}" for g, o, _, _ in GAMES])
def test_a_hand_plays_and_settles_over_http(app, client, new_player, worker, auditor, game, options,
                                            buy_in, players):
    """Play a whole hand, settle it in the worker, and check money and secrecy."""
    session = Session(client, game, [new_player(f"P{i}", deposit=200) for i in range(players)],
                      ticketed=True)
    session.open(options, buy_in)
    hand_id = session.deal()
    session.play_hand()
    hand = session.wait_settled(hand_id)
    assert totals(app) == (0, 0)
    # The seed is revealed once settled; Casino pirate's to auditors only (it would uncover
    # conceded hands), so the operator and the players do not get it there.
    seen_by_auditor = client.get(f"/v1/hands/{hand_id}", headers=bearer(auditor)).json["server_seed"]
    assert seen_by_auditor
    for headers in (OPERATOR, session.players[0].auth):
        shown = client.get(f"/v1/hands/{hand_id}", headers=headers).json["server_seed"]
        assert shown == (None if game == "casino-pirate" else seen_by_auditor)

    store = app.extensions["banco.store"]
    stored = store.read_stream(handlers.stream(session.table_id))
    # Settlement equals the engine's payout recomputed from the recorded events.
    with transaction(app.extensions["banco.pool"], app.extensions["banco.store"]) as uow:
        table = handlers.load(uow, session.table_id)
    engine = handlers.engine_of(table)
    state = engine.initial_state(table.options)
    for e in stored:
        if e.type.startswith(GAME_EVENT_PREFIX) and e.data["hand"] == hand_id:
            state = engine.evolve(state, engine_event(e))
    assert table.hand_id == hand_id
    table.seats = hand["seats"]  # the line-up of that hand (a finished table has none left)
    expected = [{"from": t.from_account, "to": t.to_account, "amount": t.amount, "reason": t.reason}
                for t in handlers.transfers(table, engine.settle(state))]
    assert hand["postings"] == expected

    # Each player's treasure: wallet + seat changed exactly by the table's postings to him.
    for p in session.players:
        wallet = client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"]
        moved = sum((e.data["amount"] if e.data["to"].endswith(p.id) else 0)
                    - (e.data["amount"] if e.data["from"].endswith(p.id) else 0)
                    for e in stored if e.type == "TreasurePosted"
                    and (e.data["from"], e.data["to"]) not in (
                        (f"wallet:{p.id}", f"seat:{session.table_id}:{p.id}"),
                        (f"seat:{session.table_id}:{p.id}", f"wallet:{p.id}")))
        seat = next((s["balance"] for s in client.get(f"/v1/tables/{session.table_id}",
                                                      headers=OPERATOR).json["seats"]
                     if s["player_id"] == p.id), 0)
        assert wallet + seat == 200 + moved

    # Nothing any player received showed a card he could not know at that moment.
    for p in session.players:
        session.call(p, "get", f"/v1/tables/{session.table_id}/events", query_string={"limit": 1000})
        session.call(p, "get", f"/v1/hands/{hand_id}")
        session.call(p, "get", f"/v1/tables/{session.table_id}/hands")
        # A dispute of his about the hand, re-adjudicated: its differences shown as his seat
        # sees the hand.
        opened = session.call(p, "post", "/v1/disputes", json={"hand_id": hand_id,
                                                               "reason": "check my hand"})
        assert opened.status_code == 201, opened.json
        again = session.call(p, "post", f"/v1/disputes/{opened.json['id']}/readjudications",
                             json={})
        assert again.status_code == 201 and again.json["matches"], again.json
        session.call(p, "get", f"/v1/disputes/{opened.json['id']}")
    session.audit(hand_id)
    session.read_feed_to_the_end()
    assert leaks(session, stored) == []
    assert len(session.received) > 3 * players
    assert session.turn_tables > 0, "the oracle read tables sent over streams"
    assert session.ticketed_peeks > 0, "the oracle read streams opened with a stream ticket"
    assert session.feed_events > 0, "the oracle read the table's events in the operator's feed"

    # The hand verifies: deck, rules, money and the hash chain, each check named.
    verification = client.get(f"/v1/hands/{hand_id}/verification", headers=bearer(auditor)).json
    assert verification["passed"], [c for c in verification["checks"] if not c["passed"]]
    assert {c["name"] for c in verification["checks"]} == {
        "deck.commitment", "deck.order", "deck.dealt", "rules", "money.settlement",
        "money.double_entry", "money.no_negative", "integrity.chain"}
    outsider = new_player("Outsider")
    assert client.get(f"/v1/hands/{hand_id}/replay", headers=outsider.auth).status_code == 403


def _play_always_hitting(session: Session) -> None:
    """Every punter bets the least and hits while he may; everyone else takes his first move."""
    path = f"/v1/tables/{session.table_id}"
    while True:
        views = {p.id: session.call(p, "get", path).json for p in session.players}
        if next(iter(views.values()))["status"] != "playing":
            return
        p = next(p for p in session.players if views[p.id]["legal_actions"])
        offered = {a["type"]: a for a in views[p.id]["legal_actions"]}
        if "hit" in offered:
            action = {"type": "hit"}
        elif "bet" in offered:
            action = {"type": "bet", "amount": offered["bet"]["amount"]["min"]}
        else:
            action = session.payload(next(iter(offered.values())))
        r = session.call(p, "post", f"{path}/actions", json=action,
                         headers={"If-Match": f'"{views[p.id]["version"]}"'})
        assert r.status_code == 200, (action, r.json)


def test_a_hand_ended_by_a_move_that_posts_shows_the_seed_its_settlement_revealed(
        app, client, new_player, worker, auditor):
    """Seed: ../shared/seeds/001_6b5bbd2473d5c47f.txt (Sette e mezzo: over 7½ the player loses
    the stake at once). The move that busts the only punter ends the hand and pays the banker;
    the settlement, and the seed it reveals, come after that posting, and the hand's summary must
    still find the seed."""
    session = Session(client, "sette-e-mezzo", [new_player(f"H{i}", deposit=100) for i in range(2)])
    session.open({}, 50)
    store = app.extensions["banco.store"]
    for _ in range(30):  # nearly every hand ends in a bust when the punter always hits
        hand_id = session.deal()
        _play_always_hitting(session)
        session.wait_settled(hand_id)
        after_last = store.read_stream(handlers.stream(session.table_id),
                                       _last_version(app, hand_id), limit=1)[0]
        if after_last.type == "TreasurePosted" and after_last.data["hand"] == hand_id:
            break
    else:
        raise AssertionError("no hand ended on a move that posted")
    revealed = next(e for e in store.read_stream(handlers.stream(session.table_id))
                    if e.type == "SeedRevealed" and e.data["hand_id"] == hand_id)
    for headers in (bearer(auditor), OPERATOR, session.players[0].auth):
        shown = client.get(f"/v1/hands/{hand_id}", headers=headers).json
        assert shown["status"] == "settled"
        assert shown["server_seed"] == revealed.data["server_seed"]
    listed = client.get(f"/v1/tables/{session.table_id}/hands", headers=bearer(auditor)).json
    assert [h["server_seed"] for h in listed["items"] if h["id"] == hand_id] == [
        revealed.data["server_seed"]]


def _last_version(app, hand_id: str) -> int:
    with app.extensions["banco.pool"].connection() as conn:
        return int(conn.execute("SELECT last_version FROM hands WHERE hand_id = %s",
                                (hand_id,)).fetchone()[0])
