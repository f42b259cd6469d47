"""Seeds given with a bet, over the API (RULES.md, "Fair decks": players may add their own seed
text when they join or bet). A Sette e mezzo hand whose bets carried seeds deals the cards the
recipe gives from the server seed, the join seeds in seat order and the bet seeds in the order
placed; it verifies in Banco and in both standalone verifiers, and a forged bet seed fails them
all. Siete y media and Casino pirate deal before the bets and refuse a bet's seed."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from games import deck
from games.contract import SeedMaterial
from tests.service.conftest import OPERATOR, bearer
from tests.service.play import Session, evidence, leaks

BET_SEEDS = ("first bettor's 🎲", "second bettor's")


@pytest.fixture
def auditor(client) -> str:
    return str(client.post("/v1/auditors", json={"name": "a"}, headers=OPERATOR).json["token"])


def bet_with_seeds(session: Session, seeds: tuple[str, ...]) -> list[str]:
    """Each bettor in turn bets the minimum with the next of `seeds` (None once they run out):
    the players who bet, in order."""
    order = []
    for k in range(len(session.players)):
        views = {p.id: session.call(p, "get", f"/v1/tables/{session.table_id}").json
                 for p in session.players}
        bettor = next((p for p in session.players if any(
            a["type"] == "bet" for a in views[p.id]["legal_actions"])), None)
        if bettor is None:
            break
        table = views[bettor.id]
        offer = next(a for a in table["legal_actions"] if a["type"] == "bet")
        action: dict[str, Any] = {"type": "bet", "amount": offer["amount"]["min"]}
        if k < len(seeds):
            action["seed"] = seeds[k]
        r = session.call(bettor, "post", f"/v1/tables/{session.table_id}/actions", json=action,
                         headers={"If-Match": f'"{table["version"]}"'})
        assert r.status_code == 200, r.json
        order.append(bettor.id)
    return order


def game_events(session: Session, auditor: str) -> list[tuple[str, dict[str, Any]]]:
    return [(e["type"], e["data"]) for e in session.auditor_events(auditor)]


@pytest.fixture
def seeded(client, new_player, worker, auditor) -> tuple[Session, str]:
    """A settled hand of Sette e mezzo between three players whose two bets carried seeds."""
    session = Session(client, "sette-e-mezzo", [new_player(f"S{i}", deposit=200) for i in range(3)])
    session.open({}, 50)
    hand_id = session.deal()
    assert len(bet_with_seeds(session, BET_SEEDS)) == 2
    session.play_hand()
    session.wait_settled(hand_id)
    return session, hand_id


def test_a_hand_whose_bets_carry_seeds_deals_the_cards_the_recipe_gives(client, seeded, auditor):
    session, hand_id = seeded
    events = game_events(session, auditor)
    types = [t for t, _ in events]
    revealed = next(d for t, d in events if t == "SeedRevealed")
    joined = [f"seed-{i}" for i in range(3)]  # Session.open's join seeds, in seat order
    # Computed apart, with games/deck.py: the join seeds, then the bets' in the order placed.
    recipe = deck.shuffled(deck.italian_40(), SeedMaterial(revealed["server_seed"],
                                                           (*joined, *BET_SEEDS)))
    shuffled = next(d for t, d in events if t == "DeckShuffled")
    assert shuffled == {"player_seeds": [*joined, *BET_SEEDS], "deck": list(recipe)}
    assert revealed["player_seeds"] == [*joined, *BET_SEEDS]
    assert [d["seed"] for t, d in events if t == "BetPlaced"] == list(BET_SEEDS)
    # Shuffled again after the last bet and before the first card.
    assert types.index("DeckShuffled") > max(i for i, t in enumerate(types) if t == "BetPlaced")
    assert types.index("DeckShuffled") < types.index("CardDealt")
    dealt = [d["card"] for t, d in events if t == "CardDealt"]
    assert dealt == list(recipe[:len(dealt)])
    assert dealt != list(deck.shuffled(deck.italian_40(), SeedMaterial(
        revealed["server_seed"], tuple(joined)))[:len(dealt)])
    report = client.get(f"/v1/hands/{hand_id}/verification", headers=bearer(auditor)).json
    assert report["passed"], report
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["deck.order"]["evidence"]["recomputed"] == list(recipe)


def test_the_bet_seed_is_shown_to_the_table_and_the_new_deck_to_auditors_only(app, client, seeded):
    session, hand_id = seeded
    for p in session.players:
        items = session.call(p, "get", f"/v1/tables/{session.table_id}/events",
                             query_string={"limit": 1000}).json["items"]
        assert [e["data"]["seed"] for e in items if e["type"] == "BetPlaced"] == list(BET_SEEDS)
        assert [e["data"] for e in items if e["type"] == "DeckShuffled"] == [{}]
    # Nothing any player received (the hand as played, its events, replay, verification and
    # evidence) showed a card he could not know at that moment: the new deck included.
    session.audit(hand_id)
    session.read_feed_to_the_end()
    stored = app.extensions["banco.store"].read_stream(f"table-{session.table_id}")
    assert leaks(session, stored) == []


def _edited(bundle: dict[str, Any], seed: str, summary: bool) -> dict[str, Any]:
    """The first bet's seed changed to `seed` in its stored text (and, when `summary`, in the
    bundle's `seeds` too), as only the house could."""
    out = json.loads(json.dumps(bundle))
    entry = next(e for e in out["events"] if e["type"] == "game.BetPlaced")
    body = orjson.loads(entry["canonical"])
    body["data"]["data"]["seed"] = seed
    entry["canonical"] = orjson.dumps(body, option=orjson.OPT_SORT_KEYS).decode()
    if summary:
        out["seeds"]["player_seeds"][3] = seed
    return out


def test_such_a_hand_verifies_in_every_reader_and_a_forged_bet_seed_fails_them_all(
        client, seeded, auditor, house_key_file, tmp_path):
    from service.runtime import house_key
    from tests.verifier.test_vectors import outcomes
    from tests.verifier.vectors import forged

    session, hand_id = seeded
    key_file = tmp_path / "house-key.json"
    key_file.write_text(json.dumps(client.get("/.well-known/banco-house-key").json))
    for who, deck_status in ((bearer(auditor), "passed"), (session.players[1].auth, "passed")):
        bundle = evidence(client, hand_id, who).json
        assert bundle["seeds"]["player_seeds"] == [*(f"seed-{i}" for i in range(3)), *BET_SEEDS]
        for checks in outcomes(bundle, tmp_path, key_file):
            assert {k for k, c in checks.items() if c["status"] == "failed"} == set(), checks
            assert checks["deck"]["status"] == deck_status, checks["deck"]
    bundle = evidence(client, hand_id, bearer(auditor)).json
    key = house_key.load(house_key_file)
    for checks in outcomes(forged(json.loads(json.dumps(bundle)), key), tmp_path, key_file):
        assert "failed" not in {c["status"] for c in checks.values()}, checks
    # The bet's seed and the summary both say another seed: the deck the seeds give is not the
    # one shuffled again, nor are the cards dealt.
    for checks in outcomes(forged(_edited(bundle, "forged", summary=True), key), tmp_path, key_file):
        assert checks["contents"]["status"] == "passed", checks["contents"]
        assert checks["deck"]["status"] == "failed", checks["deck"]
    # The bet's seed alone: the summary's seeds no longer say what the events say.
    for checks in outcomes(forged(_edited(bundle, "forged", summary=False), key), tmp_path, key_file):
        assert checks["contents"]["status"] == "failed", checks["contents"]
        assert checks["deck"]["status"] == "failed", checks["deck"]
    # Unsigned, the edit breaks the chain as any edit does.
    for checks in outcomes(_edited(bundle, "forged", summary=True), tmp_path, key_file):
        assert checks["chain"]["status"] == "failed", checks["chain"]


@pytest.mark.parametrize(("game", "options", "buy_in"), [("siete-y-media", {}, 50),
                                                         ("casino-pirate", {}, None)])
def test_a_game_that_deals_before_the_bets_refuses_a_bet_seed_and_changes_nothing(
        client, new_player, game, options, buy_in, auditor):
    session = Session(client, game, [new_player(f"D{i}", deposit=200) for i in range(2)])
    session.open(options, buy_in)
    session.deal()
    for _ in range(10):
        views = {p.id: session.call(p, "get", f"/v1/tables/{session.table_id}").json
                 for p in session.players}
        bettor = next((p for p in session.players if any(
            a["type"] == "bet" for a in views[p.id]["legal_actions"])), None)
        if bettor is not None:
            break
        # Siete y media: the banker announces the stake first.
        banker = next(p for p in session.players if views[p.id]["legal_actions"])
        table = views[banker.id]
        action = session.payload(table["legal_actions"][0])
        assert session.call(banker, "post", f"/v1/tables/{session.table_id}/actions", json=action,
                            headers={"If-Match": f'"{table["version"]}"'}).status_code == 200
    assert bettor is not None
    table = views[bettor.id]
    before = game_events(session, auditor)
    offer = next(a for a in table["legal_actions"] if a["type"] == "bet")
    r = session.call(bettor, "post", f"/v1/tables/{session.table_id}/actions",
                     json={"type": "bet", "amount": offer["amount"]["min"], "seed": "too late"},
                     headers={"If-Match": f'"{table["version"]}"'})
    title = {"siete-y-media": "Siete y media", "casino-pirate": "Casino pirate"}[game]
    assert r.status_code == 422, r.json
    assert r.json["code"] == "bad_action"
    assert r.json["detail"] == (f"a bet takes no seed in {title}: its cards are dealt before the"
                                " bets, and a seed given after the deal cannot take part in their"
                                " shuffle; give yours when you join")
    assert game_events(session, auditor) == before
    after = session.call(bettor, "get", f"/v1/tables/{session.table_id}").json
    assert after["version"] == table["version"] and after["legal_actions"] == table["legal_actions"]
