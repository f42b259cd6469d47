"""`/hands/<id>`: a settled hand replayed step by step, and its deck checked again in the browser,
from the revealed seeds and the recorded events alone, so that a tampered seed or card shows
there even when the server says all is well."""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from playwright.sync_api import expect

from games import deck
from games.contract import AUDITOR, SeatInfo, SeedMaterial, Viewer, redact
from tests.games.pirate_pairs_play import Table
from tests.games.pirate_pairs_play import play as play_pirate_pairs
from tests.games.test_sevenhalf_properties import concrete
from tests.pages.conftest import Api, Player, signed_in
from tests.pages.test_table_page import label
from tests.service.play import SEVENHALF

# One game of each family (how its deck is dealt): off the top, round-robin with a pile, a stock.
GAMES = {"sette-e-mezzo": ({}, 50, 2), "casino-pirate": ({}, None, 3),
         "pirate-pairs": ({"stake": 5}, 40, 3), "cassino": ({"variant": "draw"}, 30, 2)}


@dataclass
class Played:
    hand: str
    players: list[Player]


def play(api: Api, game: str) -> Played:
    """A whole hand over the API, each move a random legal one, until it is settled."""
    options, buy_in, n = GAMES[game]
    rng = random.Random(11)
    players = [api.new_player(f"P{i}", deposit=200) for i in range(n)]
    table = api.post("/v1/tables", {"game": game, "options": options})["id"]
    for i, p in enumerate(players):
        # A seed of many UTF-8 bytes: the browser must hash its length in bytes, as the server does.
        body: dict[str, Any] = {"age": 20 + 7 * i, "seed": f"seed-{i} Zoë 🎲"}
        if buy_in is not None:
            body["buy_in"] = buy_in
        api.post(f"/v1/tables/{table}/seats", body, token=p.token)
    hand = api.post(f"/v1/tables/{table}/hands")["hand"]["id"]
    for _ in range(3000):
        views = {p.id: api.get(f"/v1/tables/{table}", token=p.token) for p in players}
        if next(iter(views.values()))["status"] != "playing":
            break
        p = rng.choice([p for p in players if views[p.id]["legal_actions"]])
        view = views[p.id]
        action = rng.choice(view["legal_actions"])
        action = concrete(action, rng) if game in SEVENHALF else dict(action)
        api.call("POST", f"/v1/tables/{table}/actions", json=action, token=p.token,
                 headers={"If-Match": f'"{view["version"]}"'})
    deadline = time.monotonic() + 60
    while api.get(f"/v1/hands/{hand}")["status"] != "settled":
        assert time.monotonic() < deadline, "the hand was not settled"
        time.sleep(0.05)
    return Played(hand, players)


@pytest.fixture(scope="module")
def hands(served) -> dict[str, Played]:
    api = Api(served)
    return {game: play(api, game) for game in GAMES}


@pytest.fixture(scope="module")
def auditor(served) -> Player:
    return Api(served).new_auditor()


def browser_result(page: Any, check: str) -> Any:
    return page.locator(f"tr[data-check='{check}'] td.browser")


def test_the_page_shuffles_bit_for_bit_as_games_deck(page):
    """The published test vector, and a shuffle of Python's with multi-byte seeds and a label."""
    page.goto("/")
    material = SeedMaterial("ab" * 32, ("Zoë 🎲", "", "x"))
    got = page.evaluate("""async ([seed, seeds]) => {
        const f = await import('/static/fair_deck.js');
        const digits = [...Array(10).keys()].map(String);
        return {
            commitment: await f.commitment('00'.repeat(31) + '01'),
            vector: await f.shuffled(digits, '00'.repeat(31) + '01', ['alice']),
            pairs: await f.shuffled(f.decks.piratePairs55(), seed, seeds, 'reshuffle-2'),
            decks: [f.decks.italian40(), f.decks.spanish40(), f.decks.french52(),
                    f.decks.pirateCasino({gems: 3, gold_coins: 5, pebbles: 2, skeletons: 1})],
        };
    }""", [material.server_seed, list(material.player_seeds)])
    assert got["commitment"] == "ec4916dd28fc4c10d78e287ca5d9cc51ee1ae73cbfde08c6b37324cbfaac8bc5"
    assert got["vector"] == ["8", "5", "0", "1", "2", "6", "9", "7", "4", "3"]
    assert got["pairs"] == list(deck.shuffled(deck.pirate_pairs_55(), material, "reshuffle-2"))
    assert got["decks"] == [list(deck.italian_40()), list(deck.spanish_40()), list(deck.french_52()),
                            list(deck.pirate_casino(3, 5, 2, 1))]


def test_a_hand_steps_forward_and_back_with_buttons_and_keys(page, served, hands):
    played = hands["sette-e-mezzo"]
    steps = Api(served).get(f"/v1/hands/{played.hand}/replay", token=played.players[0].token)["steps"]
    n = len(steps)
    signed_in(page, played.players[0].token)
    page.goto(f"/hands/{played.hand}")
    position, title = page.locator("#step-position"), page.locator("#step-title")
    expect(position).to_have_text(f"Step 1 of {n}")
    expect(title).to_contain_text("HandBegan")
    expect(page.get_by_role("button", name="Previous step")).to_be_disabled()
    page.get_by_role("button", name="Next step").click()
    expect(position).to_have_text(f"Step 2 of {n}")
    expect(title).to_contain_text(steps[1]["type"])
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"Step 3 of {n}")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(position).to_have_text(f"Step 1 of {n}")
    page.keyboard.press("End")
    expect(position).to_have_text(f"Step {n} of {n}")
    expect(title).to_contain_text(steps[-1]["type"])
    expect(page.get_by_role("button", name="Next step")).to_be_disabled()
    page.get_by_role("button", name="First step").click()
    expect(position).to_have_text(f"Step 1 of {n}")
    page.keyboard.press("End")
    page.keyboard.press("Home")
    expect(position).to_have_text(f"Step 1 of {n}")
    # Each step's cause: who sent which command; the bet is the player's own payload.
    bet = next(s for s in steps if s["type"] == "BetPlaced")
    page.get_by_role("navigation", name="Steps of the hand").get_by_role(
        "link", name=f"{bet['step']} BetPlaced").click()
    detail = page.locator("#step-detail")
    expect(detail).to_contain_text("Act")
    # The player who sent it, by name, his id on hover; his wallet linked only if it is the
    # viewer's own (another's answers a player 403).
    actor = bet["cause"]["actor"].split(":")[1]
    named = f"P{[p.id for p in played.players].index(actor)}"  # as `play` names them
    by = detail.get_by_role("region", name="Cause").get_by_title(actor, exact=True)
    expect(by).to_have_text(named)
    expect(by).to_have_js_property("tagName", "A" if actor == played.players[0].id else "SPAN")
    expect(detail).to_contain_text("State after this step")
    expect(page.get_by_role("heading", name="Postings")).to_be_visible()


@pytest.mark.parametrize("game", list(GAMES))
def test_the_browser_verifies_a_real_hand_of_each_game(page, hands, auditor, game):
    signed_in(page, auditor.token)
    page.goto(f"/hands/{hands[game].hand}")
    expect(page.locator("#browser-verdict")).to_contain_text("Passed in this browser")
    for check in ("deck.commitment", "deck.order", "deck.dealt"):
        expect(browser_result(page, check)).to_contain_text("passed")
        expect(page.locator(f"tr[data-check='{check}'] td.server")).to_contain_text("passed")
    expect(browser_result(page, "rules")).to_have_text("server only")


def test_a_player_checks_what_he_was_shown_and_casino_pirate_needs_an_auditor(page, hands):
    cassino = hands["cassino"]
    signed_in(page, cassino.players[0].token)
    page.goto(f"/hands/{cassino.hand}")
    expect(page.locator("#browser-verdict")).to_contain_text("Passed in this browser")
    expect(browser_result(page, "deck.dealt")).to_contain_text("hidden from you not compared")
    expect(browser_result(page, "deck.order")).to_contain_text("auditors only")
    pirate = hands["casino-pirate"]
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, pirate.players[0].token)
    page.goto(f"/hands/{pirate.hand}")
    expect(page.locator("#browser-verdict")).to_contain_text("needs an auditor's token")
    expect(browser_result(page, "deck.commitment")).to_contain_text("not checked")


def tampered(page: Any, hand: str, change: Any) -> None:
    """Serve the page a replay edited by `change(steps)`, as a lying server would."""
    def route(r: Any) -> None:
        response = r.fetch()
        body = orjson.loads(response.body())
        change(body["steps"])
        r.fulfill(response=response, body=orjson.dumps(body))

    page.route(f"**/v1/hands/{hand}/replay", route)


def test_a_tampered_seed_fails_the_commitment_in_the_browser(page, hands, auditor):
    hand = hands["cassino"].hand

    def change(steps: list[dict[str, Any]]) -> None:
        revealed = next(s for s in steps if s["type"] == "SeedRevealed")
        seed = revealed["data"]["server_seed"]
        revealed["data"]["server_seed"] = seed[:-1] + ("0" if seed[-1] != "0" else "1")

    tampered(page, hand, change)
    signed_in(page, auditor.token)
    page.goto(f"/hands/{hand}")
    verdict = page.locator("#browser-verdict")
    expect(verdict).to_contain_text("Failed in this browser: deck.commitment")
    expect(verdict).to_contain_text("SHA-256 of the seed differs from the commitment")
    expect(browser_result(page, "deck.commitment")).to_contain_text("failed")
    # The server, not lied to, still passes it: the page shows both.
    expect(page.locator("tr[data-check='deck.commitment'] td.server")).to_contain_text("passed")


@pytest.mark.parametrize("key", ["server_seed", "commitment"])
def test_a_hand_whose_seed_or_commitment_is_not_the_replays_fails_in_the_browser(page, hands, auditor, key):
    """The page showed the commitment and server seed of GET /v1/hands/{id} while the browser's
    check used the replay's (HandBegan, SeedRevealed), and nothing compared them: a hand that
    said another seed was shown beside "Passed". The check now fails, naming both values."""
    hand = hands["cassino"].hand
    told: dict[str, str] = {}

    def route(r: Any) -> None:
        response = r.fetch()
        body = orjson.loads(response.body())
        told["was"] = body[key]
        body[key] = body[key][:-1] + ("0" if body[key][-1] != "0" else "1")
        told["now"] = body[key]
        r.fulfill(response=response, body=orjson.dumps(body))

    page.route(f"**/v1/hands/{hand}", route)
    signed_in(page, auditor.token)
    page.goto(f"/hands/{hand}")
    verdict = page.locator("#browser-verdict")
    expect(verdict).to_contain_text("Failed in this browser: deck.commitment")
    what = key.replace("_", " ")
    expect(verdict).to_contain_text(
        f"the hand's {what} ({told['now']}) differs from the replay's ({told['was']})")
    expect(browser_result(page, "deck.commitment")).to_contain_text("failed")


@pytest.mark.parametrize("game", ["sette-e-mezzo", "pirate-pairs"])
def test_a_tampered_card_is_not_the_decks_next_card_in_the_browser(page, hands, auditor, game):
    hand = hands[game].hand
    at: dict[str, int] = {}

    def change(steps: list[dict[str, Any]]) -> None:
        dealt = next(s for s in steps if s["type"] in ("CardDealt", "CardsDealt") and s["step"] > 3)
        at["step"] = dealt["step"]
        if "card" in dealt["data"]:
            dealt["data"]["card"] = "Ks" if dealt["data"]["card"] != "Ks" else "As"
        else:
            cards = dealt["data"]["cards"]
            cards[0] = "1.1" if cards[0] != "1.1" else "2.1"

    tampered(page, hand, change)
    signed_in(page, auditor.token)
    page.goto(f"/hands/{hand}")
    verdict = page.locator("#browser-verdict")
    expect(verdict).to_contain_text("Failed in this browser: deck.dealt")
    expect(verdict).to_contain_text(f"step {at['step']}")
    expect(browser_result(page, "deck.dealt")).to_contain_text("failed")
    expect(browser_result(page, "deck.commitment")).to_contain_text("passed")


def viewer_token(served: Any, played: Played, auditor: Player, viewer: str) -> str:
    """The token of `viewer`: the auditor, the operator, or the hand's player at seat 0."""
    if viewer == "auditor":
        return auditor.token
    return served.operator_key if viewer == "operator" else played.players[0].token


@pytest.mark.parametrize("viewer", ["auditor", "player", "operator"])
def test_a_hand_shown_with_a_card_never_dealt_to_it_fails_in_the_browser(page, served, hands, auditor,
                                                                         viewer):
    """RULES.md §1a (seed 001_6b5bbd2473d5c47f.txt): a hand shows the cards dealt to it. A
    replay whose CardsShown shows another card passed in the browser, which compared only the
    cards dealt; it fails `deck.dealt` there, in the server's and the verifiers' words. To a
    player or the operator too, not shown the deal: the revealed seed gives the deck's order,
    so the card at each position a hand was dealt from."""
    played = hands["sette-e-mezzo"]
    hand = played.hand
    token = viewer_token(served, played, auditor, viewer)
    steps = Api(served).get(f"/v1/hands/{hand}/replay", token=token)["steps"]
    shown = next(s for s in steps if s["type"] == "CardsShown"
                 and (viewer == "auditor" or s["data"]["seat"] != 0))
    if viewer != "auditor":
        # The hand's first card was dealt hidden from this viewer.
        assert any(s["type"] == "CardDealt" and s["data"]["index"] == shown["data"]["index"]
                   and s["data"].get("card") is None for s in steps), shown
    at = {"version": shown["version"], "index": shown["data"]["index"]}

    def change(steps: list[dict[str, Any]]) -> None:
        cards = next(s for s in steps if s["version"] == at["version"])["data"]["cards"]
        cards[0] = next(c for c in ("Kd", "Kc") if c not in cards)

    tampered(page, hand, change)
    signed_in(page, token)
    page.goto(f"/hands/{hand}")
    verdict = page.locator("#browser-verdict")
    expect(verdict).to_contain_text("Failed in this browser: deck.dealt")
    expect(verdict).to_contain_text(f"version {at['version']} (CardsShown) shows")
    expect(verdict).to_contain_text(f"hand {at['index']} was dealt")
    expect(browser_result(page, "deck.commitment")).to_contain_text("passed")


def test_a_player_compares_the_cards_shown_after_deals_hidden_from_him(page, served, hands):
    """Seat 0's player is not shown the others' first cards as they are dealt; those shown
    later (the hand shown, a card turned up) are compared with the deck's card at the position
    each was dealt from, and only a card never shown is left "hidden from you"."""
    played = hands["sette-e-mezzo"]
    player = played.players[0]
    steps = Api(served).get(f"/v1/hands/{played.hand}/replay", token=player.token)["steps"]
    dealt = [s for s in steps if s["type"] == "CardDealt"]
    hidden = [s for s in dealt if s["data"].get("card") is None]
    assert hidden, "some card was dealt hidden from the player"
    shown: dict[int, set[str]] = {}
    for s in steps:
        if s["type"] in ("CardsShown", "CardTurnedUp"):
            shown.setdefault(s["data"]["index"], set()).update(s["data"].get("cards") or [s["data"]["card"]])
    # Which card each hidden deal was: the auditor's replay of the same hand says.
    cards = {s["step"]: s["data"]["card"] for s in Api(served).get(
        f"/v1/hands/{played.hand}/replay", token=Api(served).new_auditor().token)["steps"]
        if s["type"] == "CardDealt"}
    never = sum(cards[s["step"]] not in shown.get(s["data"]["index"], set()) for s in hidden)
    assert never < len(hidden), "some card dealt hidden from the player was shown later"
    said = f"{len(dealt)} {'card' if len(dealt) == 1 else 'cards'} dealt"
    signed_in(page, player.token)
    page.goto(f"/hands/{played.hand}")
    expect(page.locator("#browser-verdict")).to_contain_text("Passed in this browser")
    expect(browser_result(page, "deck.dealt")).to_contain_text(
        f"passed {said}; {len(dealt) - never} compared, each the deck's next card, {never} hidden from you"
        if never else f"passed {said}, each the deck's next card")


def test_the_evidence_downloads_as_json_with_the_seeds_and_results(page, served, hands, auditor):
    played = hands["pirate-pairs"]
    hand = Api(served).get(f"/v1/hands/{played.hand}", token=auditor.token)
    signed_in(page, auditor.token)
    page.goto(f"/hands/{played.hand}")
    expect(page.locator("#browser-verdict")).to_contain_text("Passed in this browser")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download evidence (JSON)").click()
    assert download.value.suggested_filename == f"hand-{played.hand}-evidence.json"
    evidence = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert evidence["hand_id"] == played.hand
    assert evidence["seeds"]["server_seed"] == hand["server_seed"]
    assert evidence["seeds"]["player_seeds"] == [s["seed"] for s in hand["seats"]]
    assert evidence["commitment"] == hand["commitment"]
    assert evidence["browser"]["passed"] is True
    assert [(c["name"], c["passed"]) for c in evidence["browser"]["checks"]] == [
        ("deck.commitment", True), ("deck.order", True), ("deck.dealt", True)]
    assert evidence["server"]["passed"] is True
    assert evidence["replay"]["steps"][0]["type"] == "HandBegan"
    material = SeedMaterial(hand["server_seed"], tuple(evidence["seeds"]["player_seeds"]))
    assert evidence["browser"]["recomputed_order"] == list(deck.shuffled(deck.pirate_pairs_55(), material))


def reshuffled_replay(viewer: Viewer) -> dict[str, Any]:
    """A Pirate pairs hand whose pile ran out and was reshuffled, played by the engine alone
    (a hand over the API rarely gets there), as a replay shows it to `viewer`."""
    table = Table(tuple(SeatInfo(i, f"p{i}", 10, age=20 + i) for i in range(3)),
                  {"stake": 1, "turn_timeout_s": 60}, SeedMaterial("00" * 31 + "07", ("a", "Zoë 🎲", "")))
    events = [e for step in play_pirate_pairs(table, random.Random(0), 0.01) for e in step.events]
    assert [e.type for e in events].count("DiscardsReshuffled") == 1
    began = {"type": "HandBegan", "kind": "table", "data": {
        "seats": [{"seat": s.seat, "seed": seed} for s, seed in zip(table.seats, table.material.player_seeds,
                                                                     strict=True)],
        "commitment": deck.commitment(table.material.server_seed)}}
    shown = [{"type": e.type, "kind": "game", "data": redact(e, viewer).data} for e in events]
    revealed = {"type": "SeedRevealed", "kind": "table", "data": {"server_seed": table.material.server_seed}}
    steps = [{**s, "step": i, "version": i} for i, s in enumerate([began, *shown, revealed], 1)]
    return {"game": "pirate-pairs", "steps": steps}


def test_a_reshuffled_pirate_pairs_pile_is_dealt_from_in_the_browser(page):
    page.goto("/")
    replay = reshuffled_replay(AUDITOR)
    reshuffle = next(s for s in replay["steps"] if s["type"] == "DiscardsReshuffled")
    drawn = next(s for s in replay["steps"] if s["step"] > reshuffle["step"] and s["type"] == "CardDrawn")
    # The card drawn after the reshuffle claimed to be another: the reshuffled pile says which.
    forged = json.loads(json.dumps(replay))
    pile = reshuffle["data"]["pile"]
    forged["steps"][drawn["step"] - 1]["data"]["card"] = next(c for c in pile if c != drawn["data"]["card"])
    check = """async ([replay]) => {
        const {checkHand} = await import('/static/deck_check.js');
        const r = await checkHand(null, replay);
        return r.checks.map((c) => [c.name, c.passed, c.event && c.event.step]);
    }"""
    assert page.evaluate(check, [replay]) == [
        ["deck.commitment", True, None], ["deck.order", True, None], ["deck.dealt", True, None]]
    assert page.evaluate(check, [forged])[2] == ["deck.dealt", False, drawn["step"]]
    # A player is not shown the reshuffled pile, but knows the discards: he checks it too.
    seen = reshuffled_replay(Viewer.at_seat(0))
    shown = [c for s in seen["steps"] if s["type"] in ("CardsDealt", "CardDrawn", "PlayerChallenged")
             for c in s["data"].get("cards", [s["data"].get("card")]) if c is not None]
    after = [s for s in seen["steps"] if s["step"] > reshuffle["step"] and s["data"].get("card")
             and s["type"] in ("CardDrawn", "PlayerChallenged")]
    assert after, "the seat was shown a card off the reshuffled pile"
    seat = page.evaluate("""async ([replay]) => {
        const {checkHand} = await import('/static/deck_check.js');
        return (await checkHand(null, replay)).checks.map((c) => [c.passed, c.evidence]);
    }""", [seen])
    assert [passed for passed, _ in seat] == [True, None, True]
    assert seat[2][1]["cards_checked"] == len(shown)


def dealt_counts(replay: dict[str, Any]) -> tuple[int, int]:
    """Cassino's cards drawn to choose the dealer, and those dealt from the deck, as the replay
    shows them."""
    draw = sum(len(s["data"]["cards"]) for s in replay["steps"] if s["type"] == "DealerCardsDrawn")
    deck_cards = sum(len(s["data"].get("cards") or []) if s["type"] != "CardDrawn" else 1
                     for s in replay["steps"]
                     if s["type"] in ("CardsDealt", "TableDealt", "CardDrawn") and s["kind"] == "game")
    return draw, deck_cards


def test_the_server_and_the_browser_count_a_cassino_deck_alike(page, served, hands, auditor):
    """Both checks count the cards drawn to choose the dealer as well as those dealt, and say so
    in the same words: no "52 checked" beside "54 dealt"."""
    cassino = hands["cassino"]
    api = Api(served)
    replay = api.get(f"/v1/hands/{cassino.hand}/replay", token=auditor.token)
    draw, dealt = dealt_counts(replay)
    assert draw >= 2 and dealt == 52
    said = f"{draw + dealt} cards dealt: {draw} to choose the dealer, {dealt} from the deck"
    checks = {c["name"]: c for c in api.get(f"/v1/hands/{cassino.hand}/verification",
                                            token=auditor.token)["checks"]}
    assert checks["deck.dealt"]["evidence"]["summary"] == said
    assert checks["deck.dealt"]["evidence"]["cards_checked"] == draw + dealt
    signed_in(page, auditor.token)
    page.goto(f"/hands/{cassino.hand}")
    expect(browser_result(page, "deck.dealt")).to_contain_text(f"passed {said}, each the deck's next card")
    expect(page.locator("tr[data-check='deck.dealt'] td.server")).to_contain_text(
        f"passed {said}, each the deck's next card")
    # A player, shown fewer cards, counts the same deck and says which he could not compare; the
    # server tells him its count (no card named) too.
    player = cassino.players[0]
    assert api.get(f"/v1/hands/{cassino.hand}/verification", token=player.token)["checks"][2][
        "evidence"] == {"summary": said}
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, player.token)
    page.goto(f"/hands/{cassino.hand}")
    expect(browser_result(page, "deck.dealt")).to_contain_text(f"{said};")
    expect(browser_result(page, "deck.dealt")).to_contain_text("hidden from you not compared")
    expect(page.locator("tr[data-check='deck.dealt'] td.server")).to_contain_text(said)


def test_each_step_draws_the_table_as_its_viewer_saw_it_and_a_link_jumps_there(page, served, hands):
    """The replay draws the step's table as the table page draws it (the viewer's own cards, the
    others' backs, whose turn, the money), from the replay's redacted state, beside the event and
    its cause; a step's link, the jump box and an address with #step-N all go to that step."""
    cassino = hands["cassino"]
    player = cassino.players[0]
    replay = Api(served).get(f"/v1/hands/{cassino.hand}/replay", token=player.token)
    steps = replay["steps"]
    n = len(steps)
    # A step in the middle of play: seat 0 holds cards, seat 1's are hidden from him.
    mid = next(s for s in steps[n // 3:] if s["state"] and s["state"]["phase"]["name"] == "playing"
               and s["state"]["hands"][0]["count"] and s["state"]["hands"][1]["count"])
    mine, theirs = mid["state"]["hands"]
    assert "cards" not in theirs
    signed_in(page, player.token)
    page.goto(f"/hands/{cassino.hand}")
    expect(page.locator("#step-position")).to_have_text(f"Step 1 of {n}")
    expect(page.locator("#step-turn")).to_contain_text("No card dealt yet")
    page.get_by_role("navigation", name="Steps of the hand").get_by_role(
        "link", name=re.compile(f"^{mid['step']} {mid['type']}")).click()
    expect(page.locator("#step-position")).to_have_text(f"Step {mid['step']} of {n}")
    assert page.evaluate("location.hash") == f"#step-{mid['step']}"
    felt = page.get_by_role("region", name="The table after this step")
    yours = felt.get_by_role("region", name="Seat 1 · P0 (you)")
    expect(yours.get_by_role("img")).to_have_count(len(mine["cards"]))
    for card in mine["cards"]:
        expect(yours.get_by_role("img", name=label(card))).to_have_count(1)
    theirs_shown = felt.get_by_role("region", name="Seat 2 · P1")
    expect(theirs_shown.get_by_role("img", name="face-down card")).to_have_count(theirs["count"])
    on_table = felt.get_by_role("region", name="On the table")
    for item in mid["state"]["table"]:
        for card in item["cards"]:
            expect(on_table.get_by_role("img", name=label(card))).to_have_count(1)
    mover = mid["state"]["phase"]["to_move"]
    seated = Api(served).get(f"/v1/hands/{cassino.hand}", token=player.token)["seats"]
    names = {s["seat"]: s["name"] for s in seated}
    expect(page.locator("#step-turn")).to_have_text(
        "Your turn: to play." if mover == 0 else f"{names[mover]}: to play.")
    # Beside it, the event and its cause, the money and the seats.
    detail = page.locator("#step-detail")
    expect(detail.get_by_role("region", name="Event")).to_contain_text(mid["type"])
    expect(detail.get_by_role("region", name="Cause")).to_contain_text(mid["cause"]["command"]["name"])
    expect(detail.locator("dd[data-money='pot']")).to_contain_text(str(mid["state"]["pot"]))
    seats = detail.get_by_role("table", name="Seats and the treasure on each")
    expect(seats.locator("tbody tr")).to_have_count(2)
    # Players by name, their ids on hover, as the table page shows them; only the viewer's own
    # wallet linked.
    for s in seated:
        named = seats.get_by_title(s["player_id"], exact=True)
        expect(named).to_have_text(s["name"])
        expect(named).to_have_js_property("tagName", "A" if s["player_id"] == player.id else "SPAN")
    expect(seats).not_to_contain_text(seated[1]["player_id"])
    expect(seats.locator("tbody tr").first).to_contain_text("(you)")
    # The jump box, and an address naming a step.
    page.get_by_label("Step", exact=True).fill("3")
    page.get_by_role("button", name="Go").click()
    expect(page.locator("#step-title")).to_contain_text(f"3 · {steps[2]['type']}")
    page.goto(f"/hands/{cassino.hand}#step-{n}")
    expect(page.locator("#step-position")).to_have_text(f"Step {n} of {n}")
    expect(page.get_by_role("button", name="Download evidence (JSON)")).to_be_visible()


def test_a_seven_and_a_half_step_shows_the_stakes_in_escrow_and_what_the_settlement_paid(page, served, hands):
    played = hands["sette-e-mezzo"]
    player = played.players[0]
    api = Api(served)
    steps = api.get(f"/v1/hands/{played.hand}/replay", token=player.token)["steps"]
    hand = api.get(f"/v1/hands/{played.hand}", token=player.token)
    bet = next(s for s in steps if s["type"] == "TreasurePosted" and s["data"]["reason"] == "bet")
    signed_in(page, player.token)
    page.goto(f"/hands/{played.hand}#step-{bet['step']}")
    detail = page.locator("#step-detail")
    expect(detail.locator("dd[data-money='escrow']")).to_contain_text(str(bet["data"]["amount"]))
    expect(detail.locator("dd[data-money='staked']")).to_contain_text(str(bet["data"]["amount"]))
    page.keyboard.press("End")
    expect(page.locator("#step-position")).to_have_text(f"Step {len(steps)} of {len(steps)}")
    paid = detail.locator("dd[data-money='settlement']")
    if hand["postings"]:
        expect(paid.get_by_role("listitem")).to_have_count(len(hand["postings"]))
    else:
        expect(paid).to_have_text("nothing")
    expect(detail.locator("dd[data-money='escrow']")).to_have_text("0")


def test_the_replay_names_its_players_and_an_erased_one_reads_erased(page, served):
    """Names (personal data) as the hand's seats give them: an erased player's is gone from
    the replay too, his id still on hover."""
    api = Api(served)
    played = play(api, "sette-e-mezzo")
    ada, bob = played.players
    hand = api.get(f"/v1/hands/{played.hand}", token=ada.token)
    assert [s["name"] for s in hand["seats"]] == ["P0", "P1"]
    api.post(f"/v1/players/{bob.id}/erasure")
    signed_in(page, ada.token)
    page.goto(f"/hands/{played.hand}")
    summary = page.get_by_role("region", name="Hand")
    expect(summary.get_by_role("link", name="P0", exact=True)).to_have_attribute("title", ada.id)
    expect(summary.get_by_title(bob.id, exact=True)).to_have_text("erased")
    expect(summary.get_by_role("link", name="erased", exact=True)).to_have_count(0)
    expect(summary).not_to_contain_text("P1")
    page.keyboard.press("End")
    seats = page.locator("#step-detail").get_by_role("table", name="Seats and the treasure on each")
    expect(seats.get_by_title(bob.id, exact=True)).to_have_text("erased")
    expect(seats.get_by_role("link", name="P0", exact=True)).to_be_visible()
    assert api.get(f"/v1/hands/{played.hand}", token=ada.token)["seats"][1]["name"] is None


def test_a_hand_in_play_is_linked_for_players_once_settled_and_its_page_says_why(page, api):
    """The table page linked "Hand #1" during play to a page that said only "403
    hand_not_settled: only auditors see a hand before it is settled". A player's table page
    links the hand once it is settled (an auditor's at once), and the hand's page, opened
    early, says in words when its replay opens, with the way back to the table."""
    ada, bob = (api.new_player(n, deposit=100) for n in ("Ada", "Bob"))
    table = api.post("/v1/tables", {"game": "sette-e-mezzo", "options": {}})["id"]
    for p in (ada, bob):
        api.post(f"/v1/tables/{table}/seats", {"buy_in": 20}, token=p.token)
    hand = api.post(f"/v1/tables/{table}/hands")["hand"]["id"]
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    facts = page.locator(".table-facts")
    expect(facts).to_contain_text("Hand #1 (playing)")
    expect(facts.get_by_role("link", name="#1", exact=True)).to_have_count(0)

    page.goto(f"/hands/{hand}")
    note = page.locator("#not-settled")
    expect(note.get_by_role("heading")).to_have_text("Hand 1 is still in play")
    expect(note).to_contain_text("open here once the hand is settled")
    expect(page.locator("main")).not_to_contain_text("403")
    page.get_by_role("link", name="Back to its table").click()
    expect(page).to_have_url(re.compile(f"/tables/{table}$"))

    # An auditor sees the hand in play: his table page links it.
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, api.new_auditor().token)
    page.goto(f"/tables/{table}")
    expect(facts.get_by_role("link", name="#1", exact=True)).to_be_visible()

    # Once it is settled, Ada's table page links it too.
    rng = random.Random(3)
    for _ in range(100):
        views = [(p, api.get(f"/v1/tables/{table}", token=p.token)) for p in (ada, bob)]
        if views[0][1]["status"] != "playing":
            break
        p, view = next(((p, v) for p, v in views if v["legal_actions"]), views[0])
        if view["legal_actions"]:
            api.call("POST", f"/v1/tables/{table}/actions", json=concrete(view["legal_actions"][0], rng),
                     token=p.token, headers={"If-Match": f'"{view["version"]}"'})
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    expect(facts).to_contain_text("Hand #1 (settled)", timeout=30000)
    facts.get_by_role("link", name="#1", exact=True).click()
    expect(page.locator("#step-position")).to_contain_text("Step 1 of")
