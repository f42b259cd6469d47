"""`/tables/{id}` in a real browser: players play whole hands through it, each from his own
browser context, a stale move is caught and shown, and nothing a page receives holds a card its
player may not see."""

from __future__ import annotations

import os
import random
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.games.test_sevenhalf_properties import concrete
from tests.pages.conftest import Api, ApiError, Player, signed_in, until

# Set to a folder to keep screenshots of the pages the tests go through, to look at them.
SHOTS = os.environ.get("BANCO_PAGE_SHOTS")


def shot(pg: Any, name: str) -> None:
    if SHOTS:
        pg.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def seated(api: Api, game: str, who: list[Player] | None = None, buy_in: int = 20,
           **options: Any) -> tuple[str, list[Player]]:
    who = who or [api.new_player(name, deposit=100) for name in ("Ada", "Bob")]
    table = api.post("/v1/tables", {"game": game, "options": options})["id"]
    for p in who:
        api.post(f"/v1/tables/{table}/seats", {"buy_in": buy_in, "age": 30}, token=p.token)
    return table, who


def at_table(open_page: Callable[[], Any], player: Player, table: str) -> Any:
    pg = signed_in(open_page(), player.token)
    pg.goto(f"/tables/{table}")
    expect(pg.locator("#live")).to_contain_text("Live")
    return pg


def deal(pg: Any, first: bool = True) -> None:
    pg.get_by_role("button", name=f"Deal the {'first' if first else 'next'} hand").click()
    expect(pg.locator("#turn-text")).not_to_contain_text("Between hands")


def shows_version(pg: Any, version: int) -> None:
    expect(pg.locator("#table-version")).to_have_text(str(version))


def moves(pg: Any) -> Any:
    return pg.get_by_role("list", name="Your move").get_by_role("button")


def play(api: Api, table: str, pages: dict[str, Any], prefer: tuple[str, ...] = ("Stand",),
         steps: int = 150) -> int:
    """Play the hand in play to its end through the pages: whoever the API offers actions to
    takes, on his page, the first control named in `prefer`, else the first one (a number left
    at its least). Returns how many moves were made."""
    for n in range(steps):
        shown = {token: api.get(f"/v1/tables/{table}", token=token) for token in pages}
        token, mine = next(((t, s) for t, s in shown.items() if s["legal_actions"]), (None, None))
        if mine is None or mine["status"] != "playing":
            return n
        pg = pages[token]
        shows_version(pg, mine["version"])
        offered = moves(pg)
        expect(offered.first).to_be_enabled()
        chosen = next((offered.filter(has_text=re.compile(f"^{p}$")) for p in prefer
                       if offered.filter(has_text=re.compile(f"^{p}$")).count()), offered.first)
        chosen.first.click()
        expect(pg.locator("#table-version")).not_to_have_text(str(mine["version"]))
    raise AssertionError(f"the hand did not end in {steps} moves")


def settled(api: Api, table: str) -> dict[str, Any]:
    for _ in range(600):
        t = api.get(f"/v1/tables/{table}")
        if t["status"] in ("open", "over") and (t["hand"] is None or t["hand"]["status"] == "settled"):
            return t
        api.get(f"/v1/tables/{table}/events?after={t['version']}&wait=0.5")
    raise AssertionError("the hand was never settled")


def balances_shown(pg: Any, table: dict[str, Any]) -> None:
    for s in table["seats"]:
        expect(pg.locator(f"tr[data-seat='{s['seat']}'] td.balance")).to_have_text(str(s["balance"]))


def test_two_players_play_sette_e_mezzo_and_a_round_of_cassino(api, open_page):
    table, (ada, bob) = seated(api, "sette-e-mezzo", max_bet=5)
    ada_pg, bob_pg = at_table(open_page, ada, table), at_table(open_page, bob, table)
    # The table's variant in words, not the API's name for it (`banker:seat0`).
    expect(ada_pg.locator(".table-facts")).to_contain_text("Variant: the first seat banks")
    deal(ada_pg)
    # Bob's page hears of the deal over the stream: his turn, counted down, with a bet to choose.
    expect(bob_pg.locator("#turn-text")).to_have_text("Your turn: to bet.")
    expect(bob_pg.get_by_role("timer")).to_contain_text(re.compile(r"0:\d\d left"))
    expect(ada_pg.locator("#turn-text")).to_have_text("Bob is to bet.")
    amount = bob_pg.get_by_label("Amount (1\N{EN DASH}5)")
    expect(amount).to_have_value("1")
    amount.fill("3")
    shot(bob_pg, "sette-bet")
    # From the keyboard: Enter sends the bet; focus then rests on his next controls.
    amount.press("Enter")
    expect(bob_pg.get_by_role("button", name="Hit (draw a card)")).to_be_focused()
    bob_pg.keyboard.press("Tab")
    expect(bob_pg.get_by_role("button", name="Stand")).to_be_focused()
    # Cards as cards: his own face-down card shown to him, to Ada only its back.
    expect(bob_pg.get_by_role("img", name=re.compile(", face down$"))).to_have_count(1)
    bob_hand = ada_pg.get_by_role("region", name="Seat 2 · Bob")
    expect(bob_hand.get_by_role("img", name="face-down card")).to_have_count(1)
    shot(bob_pg, "sette-play")
    bob_pg.keyboard.press("Enter")
    expect(ada_pg.locator("#turn-text")).to_have_text("Your turn (banker): to play.")
    play(api, table, {ada.token: ada_pg, bob.token: bob_pg})
    after = settled(api, table)
    for pg, p in ((ada_pg, ada), (bob_pg, bob)):
        balances_shown(pg, api.get(f"/v1/tables/{table}", token=p.token))
        expect(pg.get_by_role("button", name="Deal the next hand")).to_be_visible()
    assert sum(s["balance"] for s in after["seats"]) == 40
    expect(bob_pg.get_by_role("table", name="How the hand ended")).to_be_visible()
    shot(bob_pg, "sette-settled")

    table, _ = seated(api, "cassino", [ada, bob])
    ada_pg.goto(f"/tables/{table}")
    bob_pg.goto(f"/tables/{table}")
    expect(bob_pg.locator("#live")).to_contain_text("Live")
    deal(bob_pg)
    first = api.get(f"/v1/tables/{table}", token=ada.token)
    mover = ada_pg if first["turn"]["seat"] == 0 else bob_pg
    expect(moves(mover).first).to_be_visible()
    shot(mover, "cassino")
    made = play(api, table, {ada.token: ada_pg, bob.token: bob_pg}, prefer=(), steps=80)
    assert made >= 24  # every card of the round was played, from the pages
    after = settled(api, table)
    assert after["hand"]["status"] == "settled" and after["view"]["phase"]["name"] == "round_over"
    for pg, p in ((ada_pg, ada), (bob_pg, bob)):
        balances_shown(pg, api.get(f"/v1/tables/{table}", token=p.token))
    expect(ada_pg.get_by_role("table", name="Points of the round")).to_be_visible()
    shot(ada_pg, "cassino-round")


@pytest.mark.parametrize("skew_s", [45, -45])
def test_the_turns_countdown_keeps_bancos_time_on_a_device_clock_that_is_off(api, open_page, skew_s):
    """The countdown took the browser's clock for Banco's: on a device 45 s fast it said the
    time was up as the turn began, 45 s slow it said time was left after the timeout played.
    It now counts on Banco's clock, as the `Date` of its answers tells it: a 30 s turn shows
    at most 0:30 left, whatever the device's clock says."""
    table, (_, bob) = seated(api, "sette-e-mezzo", max_bet=5)
    pg = open_page()
    pg.add_init_script(f"(() => {{ const now = Date.now; Date.now = () => now() + {skew_s * 1000}; }})()")
    signed_in(pg, bob.token)
    pg.goto(f"/tables/{table}")
    expect(pg.locator("#live")).to_contain_text("Live")
    api.post(f"/v1/tables/{table}/hands")
    expect(pg.locator("#turn-text")).to_have_text("Your turn: to bet.")
    expect(pg.get_by_role("timer")).to_have_text(re.compile(r"^0:([0-2]\d|30) left$"))


def test_a_move_on_a_stale_version_shows_the_race_and_the_fresh_table(api, page):
    table, (ada, bob) = seated(api, "pirate-pairs")
    api.post(f"/v1/tables/{table}/hands", token=ada.token)
    signed_in(page, ada.token)
    # The page hears nothing more once it has read the table: as if its stream were slow.
    page.route("**/stream*", lambda route: route.abort())
    page.goto(f"/tables/{table}")
    before = api.get(f"/v1/tables/{table}", token=ada.token)
    shows_version(page, before["version"])
    expect(moves(page)).to_have_count(3)
    # Bob chooses in between, through the API: the table moves on without the page knowing.
    offer = api.get(f"/v1/tables/{table}", token=bob.token)
    api.post(f"/v1/tables/{table}/actions", offer["legal_actions"][0], token=bob.token,
             headers={"If-Match": f'"{offer["version"]}"'})
    now = api.get(f"/v1/tables/{table}", token=ada.token)
    assert now["version"] > before["version"]
    moves(page).first.click()
    expect(page.get_by_role("alert")).to_contain_text("Too late: The table moved on before your move")
    expect(page.get_by_role("alert")).to_contain_text("412 stale_version")
    shows_version(page, now["version"])
    expect(page.get_by_role("region", name="Seat 2 · Bob")).to_contain_text("has chosen")
    shot(page, "race")
    # Nothing was played for Ada; she chooses again, on the fresh table.
    assert api.get(f"/v1/tables/{table}", token=ada.token)["legal_actions"] == now["legal_actions"]
    moves(page).first.click()
    expect(page.locator("#table-version")).not_to_have_text(str(now["version"]))
    assert api.get(f"/v1/tables/{table}", token=ada.token)["legal_actions"] != now["legal_actions"]


def test_news_the_stream_brings_while_a_move_is_in_flight_is_read_after_it(api, page):
    """The stream told of a change while the page's own request was out: the page shows the
    table its answer brought, then reads the newer one. It used to drop such news, and stayed on
    its own move's table until the next change (as a hand the worker settled meanwhile)."""
    table, players = seated(api, "pirate-pairs")
    signed_in(page, players[0].token)
    page.goto(f"/tables/{table}")
    expect(page.locator("#live")).to_contain_text("Live")

    def deal_then_a_move(route: Any) -> None:
        response = route.fetch()  # the deal is committed; its answer is held back
        # The first move of the hand, made by its player from another client.
        token, offer = next((p.token, o) for p in players
                            if (o := api.get(f"/v1/tables/{table}", token=p.token))["legal_actions"])
        api.post(f"/v1/tables/{table}/actions", offer["legal_actions"][0], token=token,
                 headers={"If-Match": f'"{offer["version"]}"'})
        # Long enough for the stream to tell the page of that move while its deal is out.
        time.sleep(1.5)
        route.fulfill(response=response)

    page.route(f"**/v1/tables/{table}/hands", deal_then_a_move)
    with page.expect_response(lambda r: r.url.endswith(f"/v1/tables/{table}/hands")) as dealt:
        page.get_by_role("button", name="Deal the first hand").click()
    newest = api.get(f"/v1/tables/{table}", token=players[0].token)
    assert newest["version"] > dealt.value.json()["version"]  # the move came after the deal
    shows_version(page, newest["version"])


FRENCH = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
RANKS = {"A": "ace", "J": "jack", "Q": "queen", "K": "king"}


def label(card: str) -> str:
    return f"{RANKS.get(card[:-1], card[:-1])} of {FRENCH[card[-1]]}"


def recording(pg: Any) -> list[bytes]:
    """Every body `pg` receives from now on.

    Chromium keeps no body of a streamed response, so each stream is read here (ended by the
    server after a second; the page resumes it from its Last-Event-ID) and handed on whole:
    its bytes are those the page receives."""
    got: list[bytes] = []

    def stream(route: Any) -> None:
        try:
            response = route.fetch(url=route.request.url + "&timeout=1")
            got.append(response.body())
            route.fulfill(response=response)
        except PlaywrightError:  # the page closed while its stream was open
            pass

    def other(response: Any) -> None:
        # Not the scripts and styles, the same files for everyone, which hold no game's data
        # and may hold a card's spelling (banco.js's `getContext("2d")` read as the 2 of
        # diamonds).
        if "/stream?" not in response.url and "/static/" not in response.url:
            got.append(response.body())

    pg.route("**/stream?*", stream)
    pg.on("response", other)
    return got


def received(pg: Any, got: list[bytes], *needles: bytes, timeout_s: float = 20) -> bytes:
    """The bodies `recording` has gathered, once they hold every needle (or the time is up).

    A stream's body is handed on when the stream ends, a second after it began: on a busy
    machine the page can already show what a quicker response brought while the stream that
    carried the same move is still open. Playwright runs the route handlers only while this
    thread waits in one of its calls, hence `wait_for_timeout` rather than a sleep."""
    deadline = time.monotonic() + timeout_s
    while not all(n in b"".join(got) for n in needles) and time.monotonic() < deadline:
        pg.wait_for_timeout(100)
    return b"".join(got)


def test_a_players_page_receives_no_card_he_may_not_see(api, open_page):
    """Every body a player's page received (the table, its events, its stream) and its DOM hold
    his own face-down card and not the other seat's, which the auditor sees."""
    auditor = api.new_auditor()
    table, (ada, bob) = seated(api, "sette-e-mezzo")
    pages, gathered = {}, {}
    for p in (ada, bob):
        pg = signed_in(open_page(), p.token)
        pg.goto("about:blank")  # the sign-in page's own requests are done with
        gathered[p.token] = recording(pg)
        pg.goto(f"/tables/{table}")
        expect(pg.locator("#live")).to_contain_text("Live")
        pages[p.token] = pg
    deal(pages[ada.token])
    pages[bob.token].get_by_role("button", name="Bet").click()
    expect(pages[bob.token].locator("#turn-text")).to_have_text("Your turn: to play.")
    full = api.get(f"/v1/tables/{table}", token=auditor.token)["view"]
    hidden = {ada.token: full["bank"]["cards"][0], bob.token: full["hands"][0]["cards"][0]}
    assert not any(full["bank"]["face_up"] + full["hands"][0]["face_up"])
    for p, other in ((ada, bob), (bob, ada)):
        pg = pages[p.token]
        shows_version(pg, api.get(f"/v1/tables/{table}", token=p.token)["version"])
        expect(pg.get_by_role("img", name=f"{label(hidden[p.token])}, face down")).to_be_visible()
        dom = pg.content()
        bodies = received(pg, gathered[p.token], b"event: table", b"CardDealt")
        assert b"event: table" in bodies and b"CardDealt" in bodies
        assert f'"{hidden[p.token]}"'.encode() in bodies and label(hidden[p.token]) in dom
        assert f'"{hidden[other.token]}"'.encode() not in bodies, "a card he may not see reached his page"
        assert label(hidden[other.token]) not in dom
    shot(pages[ada.token], "sette-banker")


@pytest.mark.parametrize("game", ["siete-y-media", "casino-pirate", "pirate-pairs"])
def test_each_other_game_deals_and_plays_a_hand_from_its_controls(api, open_page, game):
    table, (ada, bob) = seated(api, game, buy_in=10)
    pages = {p.token: at_table(open_page, p, table) for p in (ada, bob)}
    deal(pages[bob.token])
    for p in (ada, bob):
        offered = api.get(f"/v1/tables/{table}", token=p.token)
        shows_version(pages[p.token], offered["version"])
        expect(moves(pages[p.token])).to_have_count(len(offered["legal_actions"]))
    shot(pages[ada.token], game)
    play(api, table, pages, prefer=("Stand", "Reveal"))
    after = settled(api, table)
    for p in (ada, bob):
        balances_shown(pages[p.token], api.get(f"/v1/tables/{table}", token=p.token))
    if after["status"] == "over":  # Pirate pairs: one hand is the whole game
        expect(pages[bob.token].locator("#turn-text")).to_have_text("The table is over.")
    else:
        assert sum(s["balance"] for s in after["seats"]) == 20
    shot(pages[bob.token], f"{game}-end")


def test_cassinos_stake_and_pot_are_on_the_table_page(api, page):
    """The stakes paid into the pot when the game opens explain the seats' balances."""
    table, (ada, _) = seated(api, "cassino", buy_in=50, stake=10)
    api.post(f"/v1/tables/{table}/hands")
    view = api.get(f"/v1/tables/{table}", token=ada.token)
    assert view["view"]["pot"] == 20 and [s["balance"] for s in view["seats"]] == [40, 40]
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    money = page.get_by_role("region", name="Money")
    expect(money.locator("dd[data-money='stake']")).to_have_text(
        "10 each, paid into the pot when the game opens")
    expect(money.locator("dd[data-money='pot']")).to_have_text("20 (to the side that wins the game)")
    expect(money.locator("dd[data-money='settlement']")).to_have_text("not yet: the hand is not settled")
    balances_shown(page, view)


def test_a_seven_and_a_half_stake_sits_in_escrow_until_the_settlement_pays_it(api, open_page):
    table, (ada, bob) = seated(api, "sette-e-mezzo", max_bet=5)
    ada_pg = at_table(open_page, ada, table)
    money = ada_pg.get_by_role("region", name="Money")
    expect(money.locator("dd[data-money='limits']")).to_have_text("1 to 5 a hand")
    api.post(f"/v1/tables/{table}/hands")
    offer = api.get(f"/v1/tables/{table}", token=bob.token)
    api.post(f"/v1/tables/{table}/actions", {"type": "bet", "amount": 4}, token=bob.token,
             headers={"If-Match": f'"{offer["version"]}"'})
    expect(money.locator("dd[data-money='staked']")).to_have_text("4: 4 on seat 2 (Bob)")
    expect(money.locator("dd[data-money='escrow']")).to_contain_text("4")
    # Bob stands, Ada plays the bank to its end: the page shows what the settlement paid.
    for _ in range(60):
        views = [api.get(f"/v1/tables/{table}", token=p.token) for p in (ada, bob)]
        if views[0]["status"] != "playing":
            break
        turn = next(((p, v) for p, v in zip((ada, bob), views, strict=True) if v["legal_actions"]), None)
        if turn is None:
            continue
        kinds = [a["type"] for a in turn[1]["legal_actions"]]
        api.post(f"/v1/tables/{table}/actions", {"type": "stand" if "stand" in kinds else kinds[0]},
                 token=turn[0].token, headers={"If-Match": f'"{turn[1]["version"]}"'})
    after = settled(api, table)
    hand = api.get(f"/v1/hands/{after['hand']['id']}")
    paid = money.locator("dd[data-money='settlement']")
    if hand["postings"]:
        expect(paid.get_by_role("listitem")).to_have_count(len(hand["postings"]))
        expect(paid).to_contain_text(f"{hand['postings'][0]['amount']} ({hand['postings'][0]['reason']})")
    else:
        expect(paid).to_have_text("nothing")
    expect(money.locator("dd[data-money='escrow']")).to_have_text("0")
    balances_shown(ada_pg, api.get(f"/v1/tables/{table}", token=ada.token))


def a_bank_that_busts_short(api: Api) -> tuple[str, Player]:
    """Sette e mezzo, bets 5 to 10: Ben banks with 3, Ann bets 10 and Cat 5, both stand and Ben
    hits until he busts (a table again where he reaches 7½): he owes 15 and holds 3."""
    for _ in range(20):
        ben, ann, cat = (api.new_player(name, deposit=100) for name in ("Ben", "Ann", "Cat"))
        options = {"min_bet": 5, "max_bet": 10}
        table = api.post("/v1/tables", {"game": "sette-e-mezzo", "options": options})["id"]
        for p, buy_in in ((ben, 3), (ann, 30), (cat, 30)):
            api.post(f"/v1/tables/{table}/seats", {"buy_in": buy_in, "age": 30}, token=p.token)
        api.post(f"/v1/tables/{table}/hands")
        bets = {ann.id: 10, cat.id: 5}
        for _ in range(20):
            views = {p.id: api.get(f"/v1/tables/{table}", token=p.token) for p in (ann, cat, ben)}
            mover = next((p for p in (ann, cat, ben) if views[p.id]["legal_actions"]), None)
            if mover is None:
                break
            kinds = [a["type"] for a in views[mover.id]["legal_actions"]]
            # The players bet and stand; the bank hits for as long as it may.
            if "bet" in kinds:
                move = {"type": "bet", "amount": bets[mover.id]}
            elif mover is not ben:
                move = {"type": "stand"}
            else:
                move = {"type": "hit" if "hit" in kinds else kinds[0]}
            api.post(f"/v1/tables/{table}/actions", move, token=mover.token,
                     headers={"If-Match": f'"{views[mover.id]["version"]}"'})
        after = settled(api, table)
        if {s["player_id"]: s["balance"] for s in after["seats"]}.get(ben.id) == 0:
            return table, ann
    raise AssertionError("the bank never busted")


def test_a_bank_that_cannot_pay_in_full_shows_what_each_seat_was_paid(api, open_page):
    """A bank short of what it owed: the results showed each bet's `net`, what the rules award
    (+5 to Cat, +10 to Ann), as if paid, and the bank's row had no figure. They now show beside
    it what each seat was paid in fact (its balance's change: Cat +3, Ann 0), the bank's figures
    too, and say who came up short by how much, on the table page and on the hand page."""
    table, ann = a_bank_that_busts_short(api)
    hand = api.get(f"/v1/tables/{table}", token=ann.token)["hand"]["id"]
    pg = at_table(open_page, ann, table)

    def shown(box: Any) -> None:
        results = box.get_by_role("table", name="How the hand ended")
        expect(results.get_by_role("columnheader")).to_have_text(
            ["Seat", "Stake", "Total", "Outcome", "Due by the rules", "Paid"])
        # Seats in the order they play (Cat before Ann), the bank last; the bank pays them in
        # that order, Cat first, as far as its 3 go.
        rows = results.locator("tbody tr")
        expect(rows).to_have_count(3)
        for row, (seat, due, paid) in zip(rows.all(), [("Seat 3 · Cat", "+5", "+3"),
                                                       ("Seat 2 · Ann (you)", "+10", "0"),
                                                       ("Seat 1 · Ben · bank", "-15", "-3")], strict=True):
            expect(row.locator("td").first).to_have_text(seat)
            expect(row.locator("td.num").nth(1)).to_have_text(due)
            expect(row.locator("td.num").nth(2)).to_have_text(paid)
        expect(box.locator(".shortfall")).to_have_text(
            "Not paid in full. The bank, seat 1 (Ben), came up short by 12: owed 15, could pay only 3."
            " Paid less than the rules award: seat 3 (Cat) +3 instead of +5;"
            " seat 2 (Ann, you) 0 instead of +10.")

    shown(pg.locator("section.felt"))
    pg.goto(f"/hands/{hand}")
    pg.get_by_role("button", name="Last step").click()
    shown(pg.locator("#step-detail"))


def test_a_hand_nobody_bet_on_shows_the_bank_owing_0_not_minus_0(api, open_page):
    """Bob let his bet's turn time out and sat the hand out: the bank's row showed "-0" due
    (the sum of no bets, negated)."""
    table, (ada, _) = seated(api, "sette-e-mezzo", turn_timeout_s=1, banker_timeout_s=1)
    api.post(f"/v1/tables/{table}/hands")
    settled(api, table)
    pg = at_table(open_page, ada, table)
    results = pg.locator("section.felt").get_by_role("table", name="How the hand ended")
    bank = results.locator("tbody tr", has_text="bank")
    expect(bank.locator("td.num").nth(1)).to_have_text("0")
    expect(results).not_to_contain_text("-0")


def test_the_hand_is_linked_for_those_its_page_opens_to(api, open_page):
    """A player dealt in no hand at the table was offered the hand's link, which opened on
    "403 forbidden: only the hand's players, the operator and auditors may see it"."""
    table, (ada, _) = seated(api, "sette-e-mezzo", turn_timeout_s=1, banker_timeout_s=1)
    cy = api.new_player("Cy")
    hand = api.post(f"/v1/tables/{table}/hands")["hand"]
    settled(api, table)
    link = f"a[href='/hands/{hand['id']}']"
    ada_pg, cy_pg = at_table(open_page, ada, table), at_table(open_page, cy, table)
    expect(ada_pg.locator(".table-facts")).to_contain_text("Hand #1 (settled)")
    expect(ada_pg.locator(".table-facts").locator(link)).to_have_text("#1")
    expect(cy_pg.locator(".table-facts")).to_contain_text("Hand #1 (settled)")
    # The hand's seats read (with what its settlement paid), which show Cy was not dealt in.
    expect(cy_pg.locator("dd[data-money='settlement']")).not_to_have_text("\u2014")
    expect(cy_pg.locator(".table-facts").locator(link)).to_have_count(0)
    with pytest.raises(ApiError) as refused:
        api.get(f"/v1/hands/{hand['id']}/replay", token=cy.token)
    assert refused.value.status == 403


def test_a_hand_is_named_a_bet_only_beside_another_of_its_seat(page):
    """Casino pirate numbers its hands across the table, Siete y media within a seat (a split):
    "bet 2" only where one seat holds two hands."""
    page.goto("/")
    titles = page.evaluate("""async () => {
        const {handView} = await import('/static/pages/table_views.js');
        const hand = (seat, index) => ({seat, index, stake: 2, status: 'open', cards: [], face_up: []});
        const view = (game, hands) => ({game, you: null, turn: null, seats: [], view: {
            phase: {name: 'playing'}, cards_left: 30, stake: 0, next_banker: null, results: [],
            bank: {seat: 2, index: -1, stake: 0, status: 'open', cards: [], face_up: []}, hands}});
        const names = (t) => {
            const box = document.createElement('div');
            box.append(...handView(t).filter(Boolean));
            return [...box.querySelectorAll('section.hand-box')].map((s) => s.getAttribute('aria-label'));
        };
        return [names(view('casino-pirate', [hand(0, 0), hand(1, 1)])),
                names(view('siete-y-media', [hand(1, 0), hand(1, 1), hand(0, 0)]))];
    }""")
    assert titles == [["Seat 3 · meneur", "Seat 1", "Seat 2"],
                      ["Seat 3 · banker", "Seat 2 · bet 1", "Seat 2 · bet 2", "Seat 1"]]


# Two seated players whose chairs are not their places in the hand's order (a player left): Bob
# plays first from chair 2, Cid second from chair 3. The viewer is Bob.
SEATS_AFTER_A_LEAVE = """
    const seats = [{seat: 0, chair: 1, player_id: 'pl_bob', name: 'Bob', balance: 20},
                   {seat: 1, chair: 2, player_id: 'pl_cid', name: 'Cid', balance: 20}];
    const hand = (seat) => ({seat, index: seat, stake: 2, status: 'open', cards: [], face_up: []});
    const sevenHalf = (game) => ({game, you: 0, turn: null, seats, options: {}, view: {
        phase: {name: 'settled'}, cards_left: 30, stake: 0, next_banker: 1, banker: 1,
        bank: {seat: 1, index: -1, stake: 0, status: 'stood', cards: [], face_up: []}, hands: [hand(0)],
        results: [{seat: 0, index: 0, stake: 2, total_display: '5', outcome: 'lost', net: -2},
                  {seat: 1, index: -1, banker: true, total_display: '6', outcome: 'won', net: 2}]}});
    const tables = {
        'sette-e-mezzo': sevenHalf('sette-e-mezzo'), 'siete-y-media': sevenHalf('siete-y-media'),
        'casino-pirate': sevenHalf('casino-pirate'),
        'pirate-pairs': {game: 'pirate-pairs', you: 0, turn: null, seats, options: {}, view: {
            phase: {name: 'finished', winner: 1}, pile_count: 0, pot: 10, discards: [],
            players: [{seat: 0, in: false, row: [], hand_count: 0},
                      {seat: 1, in: true, row: [], hand_count: 0}]}},
        cassino: {game: 'cassino', you: 0, turn: null, seats, options: {}, view: {
            round: 1, target: 21, dealer: 1, teams: null, stake: 5, pot: 10,
            phase: {name: 'round_over', winner: 0, winning_seats: [0]}, stock: {count: 0},
            table: [{id: 'b1', kind: 'build', value: 9, owner: 0, reserved: false, cards: ['4h', '5d']}],
            hands: [{seat: 0, count: 0, cards: []}, {seat: 1, count: 0}],
            captured: [{seat: 0, count: 3, cards: [], sweeps: 0}, {seat: 1, count: 1, cards: [], sweeps: 0}],
            scores: [5, 3], round_points: [{cards: 1, total: 5}, {cards: 0, total: 3}]}},
    };
"""


def test_every_game_names_a_seat_as_the_seats_table_numbers_it(page):
    """The felt numbered seats from 0 (the API's place in the hand's order: "Seat 0 (you)",
    "Dealer: seat 1", "Winner: seat 1", "build 9 · seat 0") while the seats table counts chairs
    from 1, and the two parted further once a player had left. In all five games every seat a
    person reads is now the seats table's number, with its player's name and "(you)"."""
    page.goto("/")
    got = page.evaluate("""async () => {
        const {handView, moneyView, seatsView} = await import('/static/pages/table_views.js');
        """ + SEATS_AFTER_A_LEAVE + """
        const out = {};
        const all = (box, css, f) => [...box.querySelectorAll(css)].map(f);
        for (const [game, table] of Object.entries(tables)) {
            const box = document.createElement('div');
            box.append(...handView(table).filter(Boolean), moneyView(table) || '', seatsView(table));
            document.querySelector('main').append(box);
            out[game] = {
                text: box.innerText,
                facts: box.querySelector('.felt-facts').innerText,
                hands: all(box, 'section.hand-box:not(.wide)', (s) => s.getAttribute('aria-label')),
                results: all(box, 'table.results tbody tr', (r) => r.cells[0].innerText),
                builds: all(box, '.build', (b) => [b.getAttribute('aria-label'),
                                                   b.querySelector('.build-label').innerText]),
                chairs: all(box, 'table.seats tbody th', (th) => th.innerText),
            };
            box.remove();
        }
        return out;
    }""")
    for game in ("sette-e-mezzo", "siete-y-media", "casino-pirate"):
        bank = "meneur" if game == "casino-pirate" else "banker"
        assert got[game]["hands"] == [f"Seat 3 · Cid · {bank}", "Seat 2 · Bob (you)"], game
        assert "Next bank: seat 3 (Cid)" in got[game]["facts"], game
        assert got[game]["results"] == ["Seat 2 · Bob (you)", "Seat 3 · Cid · bank"], game
        assert "2 on seat 2 (Bob, you)" in got[game]["text"], game
    assert "Winner: seat 3 (Cid)" in got["pirate-pairs"]["facts"]
    assert got["pirate-pairs"]["hands"] == ["Seat 2 · Bob (you)", "Seat 3 · Cid"]
    cassino = got["cassino"]
    assert "Dealer: seat 3 (Cid)" in cassino["facts"] and "Winner: seat 2 (Bob, you)" in cassino["facts"]
    assert cassino["builds"] == [["build of 9, owned by seat 2 (Bob, you)", "build 9 · seat 2 (Bob, you)"]]
    assert cassino["hands"] == ["Seat 2 · Bob (you)", "Seat 3 · Cid"]
    assert cassino["results"] == ["Seat 2 (Bob, you)", "Seat 3 (Cid)"]
    for game, shown in got.items():
        assert shown["chairs"] == ["2", "3"], game
        assert not re.search(r"\b[Ss]eat [01]\b|\bSide \d", shown["text"]), (game, shown["text"])


def test_after_a_player_left_the_felt_and_the_seats_table_agree_on_each_seat(api, open_page):
    """Once Ada left, Bob played first from chair 2: the seats table said 2 and the felt "Seat
    0". Both now say seat 2, the hand boxes with the players' names."""
    players = [api.new_player(name, deposit=100) for name in ("Ada", "Bob", "Cid")]
    table, (ada, bob, cid) = seated(api, "sette-e-mezzo", players, max_bet=5)
    api.call("DELETE", f"/v1/tables/{table}/seats/{ada.id}", token=ada.token)
    seats = api.get(f"/v1/tables/{table}")["seats"]
    assert [(s["seat"], s["chair"], s["name"]) for s in seats] == [(0, 1, "Bob"), (1, 2, "Cid")]
    bob_pg = at_table(open_page, bob, table)
    expect(bob_pg.locator("table.seats tbody th")).to_have_text(["2", "3"])
    expect(bob_pg.locator(".table-facts")).to_contain_text("You sit in seat 2")
    deal(bob_pg)
    view = api.get(f"/v1/tables/{table}", token=bob.token)
    shows_version(bob_pg, view["version"])
    named = {0: "Seat 2 · Bob (you)", 1: "Seat 3 · Cid"}
    role = {view["view"]["bank"]["seat"]: " · banker"}
    felt = bob_pg.locator("section.felt")
    expect(felt.locator("section.hand-box")).to_have_count(1 + len(view["view"]["hands"]))
    for h in [view["view"]["bank"], *view["view"]["hands"]]:
        expect(felt.get_by_role("region", name=named[h["seat"]] + role.get(h["seat"], ""),
                                exact=True)).to_be_visible()
    expect(felt).not_to_contain_text(re.compile(r"\b[Ss]eat [01]\b"))
    # The bet of the one who is not the banker, in the money as in the felt.
    better = next(p for p in (bob, cid) if api.get(f"/v1/tables/{table}", token=p.token)["legal_actions"])
    offer = api.get(f"/v1/tables/{table}", token=better.token)
    api.post(f"/v1/tables/{table}/actions", {"type": "bet", "amount": 3}, token=better.token,
             headers={"If-Match": f'"{offer["version"]}"'})
    on = "seat 2 (Bob, you)" if better is bob else "seat 3 (Cid)"
    expect(bob_pg.locator("dd[data-money='staked']")).to_have_text(f"3: 3 on {on}")


def test_a_finished_games_winner_is_named_by_seat_and_name(api, page):
    """A Pirate pairs game's end said "Winner: seat 1" (the API's 0-based seat) and its
    settlement paid "the seat of pl_…" (a player id, once the table was over and its seats gone),
    then "the seat of Ann". The winner is named as the seats are, with his name, and "(you)" on
    his own page, in both."""
    from tests.pages.test_hand_page import play as play_a_hand

    played = play_a_hand(api, "pirate-pairs")
    hand = api.get(f"/v1/hands/{played.hand}")
    last = [s["state"] for s in api.get(f"/v1/hands/{played.hand}/replay")["steps"] if s["state"]][-1]
    winner = last["phase"]["winner"]
    seat = next(s for s in hand["seats"] if s["seat"] == winner)
    winner_player = next(p for p in played.players if p.id == seat["player_id"])
    other = next(p for p in played.players if p is not winner_player)

    signed_in(page, winner_player.token)
    page.goto(f"/hands/{played.hand}")
    expect(page.locator("#step-position")).to_contain_text("Step 1 of")
    page.keyboard.press("End")
    felt = page.locator("#step-detail .felt-facts")
    expect(felt).to_contain_text(f"Winner: seat {winner + 1} ({seat['name']}, you)")
    # The table is over: its settlement names the winner's seat as the ending does (it said
    # "the seat of Ann").
    page.goto(f"/tables/{hand['table_id']}")
    paid = page.locator("dd[data-money='settlement']")
    expect(paid).to_contain_text(f"the pot → seat {winner + 1} ({seat['name']}, you)")
    expect(paid).not_to_contain_text(winner_player.id)
    # And it says how the game ended: the winner, and what each seat took home.
    ended = page.get_by_role("region", name="How the game ended")
    expect(ended.locator("#table-end-winner")).to_have_text(
        f"Winner: seat {winner + 1} ({seat['name']}, you), the last pirate in, who took the pot of"
        f" {last['pot']}.")
    cash_outs_shown(page, api, hand["table_id"], {s["player_id"]: s["name"] for s in hand["seats"]})

    page.get_by_role("button", name="Sign out").click()
    signed_in(page, other.token)
    page.goto(f"/hands/{played.hand}")
    expect(page.locator("#step-position")).to_contain_text("Step 1 of")
    page.keyboard.press("End")
    expect(felt).to_contain_text(f"Winner: seat {winner + 1} ({seat['name']})")
    expect(felt).not_to_contain_text("you")


def short_streams(pg: Any) -> None:
    """The page's stream ended by the server after a second (the page then resumes it): what the
    server says of the token reaches the page at once, not at a stream's usual end."""
    pg.route("**/stream?*", lambda route: route.continue_(url=route.request.url + "&timeout=1"))


def test_a_revoked_token_signs_the_table_page_out_and_offers_to_sign_in_again(api, page):
    """Eve's token revoked while her table was open: her page said "Live updates interrupted
    (unknown or revoked token); reconnecting…" and never did, the header still had her signed in
    and her moves stayed live until a click gave "401 unauthorized". A 401 is a sign-out now."""
    eve, bob = api.new_player("Eve", deposit=100), api.new_player("Bob", deposit=100)
    table, _ = seated(api, "pirate-pairs", [eve, bob])
    api.post(f"/v1/tables/{table}/hands")
    signed_in(page, eve.token)
    short_streams(page)
    page.goto(f"/tables/{table}")
    expect(page.locator("#live")).to_contain_text("Live")
    expect(moves(page).first).to_be_enabled()
    api.call("DELETE", f"/v1/players/{eve.id}/token")
    expect(page.locator("#signed-out")).to_contain_text("Your token no longer works")
    expect(page.locator("#who-name")).to_have_text("Signed out: your token no longer works")
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    expect(moves(page)).to_have_count(0)
    expect(page.get_by_role("button", name="Deal the next hand")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("reconnecting")
    assert page.evaluate("() => sessionStorage.getItem('banco.token')") is None
    # A new token, signed in with on the same page: the table and her moves are back, live.
    fresh = api.post(f"/v1/players/{eve.id}/token")["token"]
    page.get_by_label("Token").fill(fresh)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#who-name")).to_contain_text("Signed in as Eve")
    expect(page.locator("#live")).to_contain_text("Live")
    expect(moves(page).first).to_be_enabled()
    before = api.get(f"/v1/tables/{table}", token=fresh)["version"]
    moves(page).first.click()
    # Read once the move has landed: read at the click, the table could still be at `before`.
    expect(page.locator("#table-version")).not_to_have_text(str(before))
    shows_version(page, api.get(f"/v1/tables/{table}", token=fresh)["version"])


def test_a_lost_connection_is_no_longer_said_once_banco_answers_again(api, page):
    """A move tried offline showed "unreachable: Banco cannot be reached" under the turn, and it
    stayed there after the connection came back, the stream live again, until the table next
    changed. It goes as soon as Banco answers: here the table does not change at all."""
    table, (ada, _) = seated(api, "pirate-pairs")
    api.post(f"/v1/tables/{table}/hands")
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    expect(page.locator("#live")).to_contain_text("Live")
    before = api.get(f"/v1/tables/{table}", token=ada.token)["version"]
    shows_version(page, before)
    # Offline; and the move surely never reaches Banco (an emulated cut may let a request out).
    lost = f"**/v1/tables/{table}/actions"
    page.route(lost, lambda route: route.abort("internetdisconnected"))
    page.context.set_offline(True)
    moves(page).first.click()
    problem = page.get_by_role("alert")
    expect(problem).to_contain_text("unreachable")
    page.unroute(lost)
    page.context.set_offline(False)
    expect(problem).to_have_count(0, timeout=15000)
    expect(page.locator("#live")).to_contain_text("Live: this page follows")
    assert api.get(f"/v1/tables/{table}", token=ada.token)["version"] == before
    shows_version(page, before)
    expect(moves(page).first).to_be_enabled()


def test_a_page_that_goes_offline_says_so_at_once_and_catches_up_when_back(api, page):
    """Offline, the page still said "Live": its stream sent nothing more but did not break, and
    the page was taken to be following the table until it did. It says it is offline as the
    browser goes offline, and back online it follows again at once, with what changed meanwhile."""
    table, players = seated(api, "pirate-pairs")
    api.post(f"/v1/tables/{table}/hands")
    signed_in(page, players[0].token)
    page.goto(f"/tables/{table}")
    live = page.locator("#live")
    expect(live).to_contain_text("Live: this page follows")
    shows_version(page, api.get(f"/v1/tables/{table}", token=players[0].token)["version"])
    page.context.set_offline(True)
    went = time.monotonic()
    expect(live).to_contain_text("this device is offline", timeout=3000)
    mover = next(p for p in players
                 if api.get(f"/v1/tables/{table}", token=p.token)["legal_actions"])
    seen = api.get(f"/v1/tables/{table}", token=mover.token)
    moved = api.post(f"/v1/tables/{table}/actions", seen["legal_actions"][0], token=mover.token,
                     headers={"If-Match": f'"{seen["version"]}"'})["version"]
    # Offline for 8 s: the tries, 0.5 s apart and then twice as far each time, came at 0.5, 1.5,
    # 3.5 and 7.5 s, and the next one would come at 15.5 s.
    page.wait_for_timeout(max(0, 8 - (time.monotonic() - went)) * 1000)
    page.context.set_offline(False)
    # At once: within 6 s on a loaded machine, where the next try would have come 7.5 s later.
    expect(live).to_contain_text("Live: this page follows", timeout=6000)
    shows_version(page, moved)


def test_a_move_in_flight_is_said_and_busy_until_its_answer(api, page):
    """On a slow network a move only turned its controls grey for seconds. While it is out the
    panel is aria-busy and the page says "Sending your move…"; both go with the answer."""
    table, (ada, _) = seated(api, "pirate-pairs")
    api.post(f"/v1/tables/{table}/hands")
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    expect(page.locator("#live")).to_contain_text("Live")
    before = api.get(f"/v1/tables/{table}", token=ada.token)["version"]
    held: list[Any] = []
    page.route(f"**/v1/tables/{table}/actions", lambda route: held.append(route))  # held: let go below
    panel = page.locator("section.actions-panel")
    status = page.get_by_role("status").filter(has_text="Sending")
    expect(panel).not_to_have_attribute("aria-busy", "true")
    moves(page).first.click()
    expect(status).to_have_text("Sending your move…")
    expect(panel).to_have_attribute("aria-busy", "true")
    expect(moves(page).first).to_be_disabled()
    until(page, "() => true")  # the route handler runs while this thread waits in Playwright
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#table-version")).not_to_have_text(str(before))
    expect(page.locator("#sending")).to_be_hidden()
    expect(page.locator("#sending")).to_have_text("")
    expect(panel).not_to_have_attribute("aria-busy", "true")


def cash_outs_shown(pg: Any, api: Api, table: str, names: dict[str, str]) -> list[dict[str, Any]]:
    """The over table's page lists each seat's cash-out (its PlayerLeft at the table's end) by
    its player's name, and its seats table says the seats were cashed out; the cash-outs."""
    events = api.get(f"/v1/tables/{table}/events?after=0&limit=1000")["items"]
    end = next(i for i, e in enumerate(events) if e["type"] == "TableEnded")
    left = [e["data"] for e in events[:end] if e["type"] == "PlayerLeft"][-len(names):]
    rows = pg.get_by_role("table", name="What each seat took home").locator("tbody tr")
    expect(rows).to_have_count(len(left))
    for n, gone in enumerate(left):
        expect(rows.nth(n).locator("td").first).to_contain_text(names[gone["player_id"]])
        expect(rows.nth(n).locator("td.cash-out")).to_have_text(f"{gone['cash_out']:,}")
    expect(pg.locator("table.seats tbody")).to_have_text("The seats were cashed out when the table ended.")
    expect(pg.locator("table.seats")).not_to_contain_text("Nobody is seated yet")
    return left


def play_the_game(api: Api, table: str, players: list[Player], rng: random.Random) -> dict[str, Any]:
    """Deal and play hands (random legal moves over the API) until the table is over."""
    for _ in range(300):
        t = settled(api, table)
        if t["status"] == "over":
            return t
        api.post(f"/v1/tables/{table}/hands")
        for _ in range(3000):
            views = [(p, api.get(f"/v1/tables/{table}", token=p.token)) for p in players]
            if views[0][1]["status"] != "playing":
                break
            mine = [(p, v) for p, v in views if v["legal_actions"]]
            if mine:
                p, v = rng.choice(mine)
                api.call("POST", f"/v1/tables/{table}/actions", token=p.token,
                         json=concrete(rng.choice(v["legal_actions"]), rng),
                         headers={"If-Match": f'"{v["version"]}"'})
    raise AssertionError("the game never ended")


@pytest.mark.parametrize("game", ["cassino", "sette-e-mezzo"])
def test_an_over_tables_page_says_who_won_and_what_each_seat_took_home(api, page, game):
    """Once a game ended, every player's page said only "The table is over.", its felt that the
    cards had left, and its seats table "Nobody is seated yet." It now says how the game ended:
    Cassino's winning side and final score, and for every game each seat's cash-out."""
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    options = {"stake": 10} if game == "cassino" else {"max_bet": 3}
    table, _ = seated(api, game, [ada, bob], buy_in=50 if game == "cassino" else 3, **options)
    over = play_the_game(api, table, [ada, bob], random.Random(7))
    assert over["status"] == "over" and over["seats"] == []
    names = {ada.id: "Ada", bob.id: "Bob"}
    signed_in(page, bob.token)
    page.goto(f"/tables/{table}")
    expect(page.locator("#turn-text")).to_have_text("The table is over.")
    ended = page.get_by_role("region", name="How the game ended")
    expect(ended.locator("#table-end-why")).to_have_text("The game is over: it was played to its end.")
    left = cash_outs_shown(page, api, table, names)
    assert sum(gone["cash_out"] for gone in left) == (100 if game == "cassino" else 6)
    expect(ended.locator("tr.yours")).to_contain_text("Bob (you)")
    hand = api.get(f"/v1/hands/{over['hand']['id']}", token=bob.token)
    seat_of = {s["player_id"]: s["seat"] for s in hand["seats"]}

    def ref(player_id: str) -> str:
        return f"seat {seat_of[player_id] + 1} ({names[player_id]}{', you' if player_id == bob.id else ''})"

    by_seat = {s["seat"]: s["player_id"] for s in hand["seats"]}
    if game == "cassino":
        events = api.get(f"/v1/tables/{table}/events?after=0&limit=1000", token=bob.token)["items"]
        scored = [e["data"] for e in events if e["type"] == "RoundScored"][-1]
        won = scored["winner"]
        expect(ended.locator("#table-end-winner")).to_have_text(
            f"Winner: {ref(by_seat[won])}, with {scored['totals'][won]} points"
            f" after {scored['round']} rounds.")
        expect(ended.locator("#table-end-score")).to_have_text("Final score: " + " · ".join(
            f"{ref(by_seat[side])} {total}" for side, total in enumerate(scored["totals"])) + ".")
    else:
        expect(ended).to_contain_text("Fewer than two seats still held treasure")
        expect(ended.locator("#table-end-winner")).to_have_count(0)
