"""The hand page's deck check in the browser (`static/deck_check.js`) for a Sette e mezzo hand
whose bets carried seeds: it shuffles again from the join seeds then the bet seeds in the order
placed (docs/fair-decks.md), as Banco and both verifiers do, and a forged bet seed fails."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from games import deck
from games.contract import AUDITOR, SeatInfo, SeedMaterial, Viewer, redact
from games.sevenhalf import ENGINES
from games.sevenhalf.commands import PlaceBet, Stand, TimeOut
from tests.pages.test_table_page import at_table, deal, seated

SETTE = ENGINES["sette-e-mezzo"]
SERVER = "00" * 31 + "2a"
JOINED = ("alice", "", "Zoë 🎲")
BET_SEEDS = ("carol's bet 🎲", "bob")

CHECK = """async ([replay]) => {
    const {checkHand} = await import('/static/deck_check.js');
    const r = await checkHand(null, replay);
    return {checks: r.checks.map((c) => [c.name, c.passed]), order: r.order, seeds: r.seeds.player_seeds};
}"""


def replay(viewer: Viewer) -> dict[str, Any]:
    """A hand played by the engine alone, its two bets seeded, as a replay shows it to `viewer`."""
    seats = [SeatInfo(i, f"p{i}", 50, None, JOINED[i] or None) for i in range(3)]
    events = SETTE.start({}, seats, SeedMaterial(SERVER, JOINED))
    state = SETTE.initial_state({})
    for e in events:
        state = SETTE.evolve(state, e)
    for seat, seed in zip(state.order, BET_SEEDS, strict=True):
        more = SETTE.decide(state, PlaceBet(seat, 1.0, 5, seed))
        for e in more:
            state = SETTE.evolve(state, e)
        events += more
    while not SETTE.is_terminal(state):
        turn = SETTE.turn(state)
        assert turn is not None
        command = TimeOut(turn.seat, 10**9) if turn.role == "banker" else Stand(turn.seat, 2.0)
        more = SETTE.decide(state, command)
        for e in more:
            state = SETTE.evolve(state, e)
        events += more
    began = {"type": "HandBegan", "kind": "table", "data": {
        "seats": [{"seat": i, "seed": JOINED[i] or None} for i in range(3)],
        "commitment": deck.commitment(SERVER)}}
    shown = [{"type": e.type, "kind": "game", "data": dict(redact(e, viewer).data)} for e in events]
    revealed = {"type": "SeedRevealed", "kind": "table", "data": {"server_seed": SERVER}}
    steps = [{**s, "step": i, "version": i} for i, s in enumerate([began, *shown, revealed], 1)]
    return {"game": "sette-e-mezzo", "steps": steps}


def forged(good: dict[str, Any]) -> dict[str, Any]:
    """The first bet's seed changed in the replay."""
    out = json.loads(json.dumps(good))
    next(s for s in out["steps"] if s["type"] == "BetPlaced")["data"]["seed"] = "forged"
    return out


def test_the_browser_deals_off_the_deck_the_bet_seeds_shuffled_and_a_forged_one_fails(page):
    page.goto("/")
    full = (*JOINED, *BET_SEEDS)
    recipe = list(deck.shuffled(deck.italian_40(), SeedMaterial(SERVER, full)))
    audited = replay(AUDITOR)
    assert [s["type"] for s in audited["steps"]].count("DeckShuffled") == 1
    got = page.evaluate(CHECK, [audited])
    assert got["checks"] == [["deck.commitment", True], ["deck.order", True], ["deck.dealt", True]]
    assert got["order"] == recipe and got["seeds"] == list(full)
    bad = page.evaluate(CHECK, [forged(audited)])["checks"]
    assert bad[1] == ["deck.order", False] and bad[2] == ["deck.dealt", False], bad
    # A player is not shown either deck, but the bet seeds are public: he checks his cards.
    seat = replay(Viewer.at_seat(1))
    assert page.evaluate(CHECK, [seat])["checks"] == [
        ["deck.commitment", True], ["deck.order", None], ["deck.dealt", True]]
    assert page.evaluate(CHECK, [forged(seat)])["checks"][2] == ["deck.dealt", False]


def test_a_player_adds_his_seed_to_a_sette_e_mezzo_bet_from_the_table_page(api, open_page):
    """RULES.md, "Fair decks" (001_6b5bbd2473d5c47f.txt bets before the deal): the table page's
    bet offers the seed a bet may carry, sends it only when filled, and the hand is shuffled
    again with it; Siete y media's bet, after the deal, offers none."""
    table, (ada, bob) = seated(api, "sette-e-mezzo", max_bet=5)
    ada_pg, bob_pg = at_table(open_page, ada, table), at_table(open_page, bob, table)
    deal(ada_pg)
    expect(bob_pg.locator("#turn-text")).to_have_text("Your turn: to bet.")
    bob_pg.get_by_label("Amount (1\N{EN DASH}5)").fill("2")
    bob_pg.get_by_label("Seed (up to 200 characters, optional)").fill("Bob's lucky ✦")
    bob_pg.get_by_role("button", name="Bet").click()
    expect(bob_pg.get_by_role("button", name="Stand")).to_be_visible()
    events = api.get(f"/v1/tables/{table}/events?limit=1000")["items"]
    bets = [e["data"] for e in events if e["type"] == "BetPlaced"]
    assert [(b["amount"], b.get("seed")) for b in bets] == [(2, "Bob's lucky ✦")]
    assert [e["type"] for e in events].count("DeckShuffled") == 1

    siete, (cy, di) = seated(api, "siete-y-media", [api.new_player(n, deposit=100)
                                                    for n in ("Cy", "Di")], max_bet=5)
    cy_pg, di_pg = at_table(open_page, cy, siete), at_table(open_page, di, siete)
    deal(cy_pg)
    cy_pg.get_by_role("button", name="Announce the stake").click()
    expect(di_pg.locator("#turn-text")).to_have_text("Your turn: to bet.")
    expect(di_pg.get_by_role("button", name=re.compile("^Bet"))).to_be_visible()
    expect(di_pg.get_by_label("Seed (up to 200 characters, optional)")).to_have_count(0)
