"""`/tables/{id}` as a black-box tester in Chromium found it wanting: the seat form reset by
another player sitting down, every refusal called a race (and never unsaid), a 429 on /v1/me
taken for a sign-out, focus and the leave's confirmation lost, other players' wallets linked
for a player who may not open them, player ids for names at a table closed before its first
hand, a seat too poor to be dealt in left unexplained, a finished hand's bank still "in play"."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import ApiError, signed_in, until
from tests.pages.test_table_page import at_table, moves, seated, shows_version


def test_what_a_player_typed_in_the_seat_form_stays_when_another_sits_down(api, open_page):
    """Bob typed a buy-in of 12, an age and a seed; Ada sat down meanwhile: his form was built
    again with a buy-in of 50, age and seed empty, focus on <body>, and "Sit down" took 50."""
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table = api.post("/v1/tables", {"game": "sette-e-mezzo", "options": {}})["id"]
    pg = at_table(open_page, bob, table)
    offer = pg.get_by_role("form", name="Take a seat")
    offer.get_by_label("Buy-in").fill("12")
    offer.get_by_label("Age (0\N{EN DASH}150, optional)").fill("77")
    seed = offer.get_by_label("Seed (up to 200 characters, optional)")
    seed.fill("my lucky seed")
    seed.focus()
    api.post(f"/v1/tables/{table}/seats", {"buy_in": 20}, token=ada.token)
    expect(pg.locator("table.seats tbody tr")).to_have_count(1)
    expect(pg.locator("#seat-offer")).to_contain_text("11 of 12 seats free")
    expect(offer.get_by_label("Buy-in")).to_have_value("12")
    expect(offer.get_by_label("Age (0\N{EN DASH}150, optional)")).to_have_value("77")
    expect(seed).to_have_value("my lucky seed")
    expect(seed).to_be_focused()
    # And Ada leaving changes nothing he typed either; "Sit down" takes what he typed.
    api.call("DELETE", f"/v1/tables/{table}/seats/{ada.id}", token=ada.token)
    expect(pg.locator("#seat-offer")).to_contain_text("12 of 12 seats free")
    expect(offer.get_by_label("Buy-in")).to_have_value("12")
    offer.get_by_role("button", name="Sit down").click()
    expect(pg.locator(".table-facts")).to_contain_text("You sit in seat")
    seats = api.get(f"/v1/tables/{table}", token=bob.token)["seats"]
    assert [(s["player_id"], s["balance"]) for s in seats] == [(bob.id, 12)]
    assert api.get(f"/v1/players/{bob.id}/balance", token=bob.token)["balance"] == 88


def test_the_seat_form_says_and_takes_the_wallet_as_it_is_now(api, open_page):
    """The seat form read Bob's wallet once, when the page opened: after the operator deposited
    100 and the table moved on it still said "your wallet holds 470" and refused a buy-in above
    470. The wallet is read again when the table changes and before a sit-down."""
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=470)
    table = api.post("/v1/tables", {"game": "sette-e-mezzo", "options": {}})["id"]
    pg = at_table(open_page, bob, table)
    offer = pg.get_by_role("form", name="Take a seat")
    expect(pg.locator("#seats-free")).to_contain_text("your wallet holds 470")
    buy_in = offer.get_by_label("Buy-in")
    expect(buy_in).to_have_attribute("max", "470")
    api.post(f"/v1/players/{bob.id}/deposits", {"amount": 100, "reason": "desk"})
    api.post(f"/v1/tables/{table}/seats", {"buy_in": 20}, token=ada.token)
    expect(pg.locator("#seats-free")).to_contain_text("11 of 12 seats free; your wallet holds 570")
    expect(buy_in).to_have_attribute("max", "570")
    # More than the wallet holds is still held back by the form, not sent.
    buy_in.fill("5000")
    offer.get_by_role("button", name="Sit down").click()
    until(pg, "() => document.getElementById('buy-in').validity.rangeOverflow")
    expect(pg.locator(".table-facts")).not_to_contain_text("You sit in seat")
    # A deposit the page heard nothing of: "Sit down" reads the wallet before it checks the buy-in.
    api.post(f"/v1/players/{bob.id}/deposits", {"amount": 30, "reason": "desk"})
    buy_in.fill("600")
    offer.get_by_role("button", name="Sit down").click()
    expect(pg.locator(".table-facts")).to_contain_text("You sit in seat")
    seats = api.get(f"/v1/tables/{table}", token=bob.token)["seats"]
    assert [s["balance"] for s in seats if s["player_id"] == bob.id] == [600]
    assert api.get(f"/v1/players/{bob.id}/balance", token=bob.token)["balance"] == 0


def test_sitting_down_and_leaving_are_said_and_move_the_keyboard_focus_on(api, open_page):
    """From the keyboard, sitting down or leaving dropped focus to <body>, and the leave's
    "You left the table: 30 went back to your wallet." was replaced within milliseconds by the
    "Take a seat" form. Both are said in a live region and stay; focus goes to what comes next."""
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table, _ = seated(api, "sette-e-mezzo", [ada])
    pg = at_table(open_page, bob, table)
    buy_in = pg.get_by_label("Buy-in")
    buy_in.fill("30")
    buy_in.press("Enter")
    news = pg.get_by_role("status").filter(has_text="You sat down")
    expect(news).to_have_text("You sat down in seat 2: 30 went from your wallet to your seat.")
    # Focus is on his first move: to deal the first hand.
    expect(pg.get_by_role("button", name="Deal the first hand")).to_be_focused()

    leave = pg.get_by_role("button", name="Leave the table")
    leave.focus()
    leave.press("Enter")
    left = pg.get_by_role("status").filter(has_text="You left the table")
    expect(left).to_have_text("You left the table: 30 went back to your wallet.")
    expect(pg.get_by_role("region", name="Take a seat")).to_be_focused()
    # The form that offers a seat again is drawn, and the confirmation is still there beside it.
    expect(pg.get_by_role("form", name="Take a seat")).to_be_visible()
    expect(left).to_be_visible()
    assert api.get(f"/v1/players/{bob.id}/balance", token=bob.token)["balance"] == 100


def problem_under_the_turn(pg: Any) -> Any:
    return pg.locator("main > .problem-box")


def test_a_refusal_is_said_in_the_apis_words_and_unsaid_once_the_table_moves_on(api, open_page):
    """Alone at a Cassino table, "Deal the first hand" got 409 not_enough_players, and the page
    said "Too late: the table moved on…", the API's reason dropped, and kept saying it."""
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table, _ = seated(api, "cassino", [ada])
    pg = at_table(open_page, ada, table)
    pg.get_by_role("button", name="Deal the first hand").click()
    problem = problem_under_the_turn(pg)
    expect(problem).to_be_visible()
    expect(problem).to_have_attribute("role", "alert")
    refused = api.get(f"/v1/tables/{table}", token=ada.token)  # nothing changed
    with pytest.raises(ApiError) as said:  # the API's own words for the same refusal
        api.post(f"/v1/tables/{table}/hands", token=ada.token)
    assert said.value.status == 409 and said.value.problem["code"] == "not_enough_players"
    detail = said.value.problem["detail"]
    expect(problem).to_contain_text("409")
    expect(problem).to_contain_text("not_enough_players")
    expect(problem).to_contain_text(detail)
    expect(problem).not_to_contain_text("Too late")
    shows_version(pg, refused["version"])
    # Bob sits down: the table moved on, and what was said of the table before goes.
    api.post(f"/v1/tables/{table}/seats", {"buy_in": 20}, token=bob.token)
    shows_version(pg, api.get(f"/v1/tables/{table}", token=ada.token)["version"])
    expect(problem).to_be_hidden()


def test_a_lost_race_is_said_until_the_table_moves_on_again(api, open_page):
    """The race's message stayed 16 versions after it was said. It goes at the table's next
    change after the one that beat the move."""
    players = [api.new_player(name, deposit=100) for name in ("Ada", "Bob", "Cid")]
    table, (ada, bob, cid) = seated(api, "pirate-pairs", players)
    api.post(f"/v1/tables/{table}/hands", token=ada.token)
    pg = at_table(open_page, ada, table)
    before = api.get(f"/v1/tables/{table}", token=ada.token)["version"]
    shows_version(pg, before)

    def choose(p: Any) -> None:
        offer = api.get(f"/v1/tables/{table}", token=p.token)
        api.post(f"/v1/tables/{table}/actions", offer["legal_actions"][0], token=p.token,
                 headers={"If-Match": f'"{offer["version"]}"'})

    def bob_first(route: Any) -> None:
        choose(bob)  # Bob's choice lands before Ada's, which was decided on the older version
        route.continue_()

    pg.route(f"**/v1/tables/{table}/actions", bob_first)
    moves(pg).first.click()
    problem = problem_under_the_turn(pg)
    expect(problem).to_contain_text("Too late: The table moved on before your move")
    expect(problem).to_contain_text("412 stale_version")
    pg.unroute(f"**/v1/tables/{table}/actions")
    after_race = api.get(f"/v1/tables/{table}", token=ada.token)["version"]
    shows_version(pg, after_race)
    expect(problem).to_be_visible()
    choose(cid)  # the table moves on without Ada
    shows_version(pg, api.get(f"/v1/tables/{table}", token=ada.token)["version"])
    expect(problem).to_be_hidden()


def test_a_refused_whoami_keeps_the_session_and_is_asked_again(api, page):
    """A table page loaded while GET /v1/me answered 429 said "Not signed in" and offered the
    sign-in form, though the token was good. Only a 401 signs out: no answer at all, or a 429,
    says Banco refuses or cannot be reached, keeps the session and asks again."""
    table, (ada, _) = seated(api, "pirate-pairs")
    signed_in(page, ada.token)
    answers = ["offline", "429"]

    def me(route: Any) -> None:
        if not answers:
            route.continue_()
        elif answers.pop(0) == "offline":
            route.abort("internetdisconnected")
        else:
            route.fulfill(status=429, headers={"Retry-After": "1"}, content_type="application/problem+json",
                          body='{"status": 429, "code": "too_many_requests", "detail": "slow down"}')

    page.route("**/v1/me", me)
    page.goto(f"/tables/{table}")
    wait = page.locator("#service-wait")
    expect(wait).to_contain_text("Banco cannot be reached")
    expect(wait).to_contain_text("You are still signed in")
    expect(page.locator("#who-name")).not_to_have_text("Not signed in")
    expect(page.locator("form.sign-in")).to_have_count(0)
    expect(wait).to_contain_text("429 too_many_requests: slow down")
    assert page.evaluate("() => sessionStorage.getItem('banco.token')") == ada.token
    # Banco answers again: the page is the table's, signed in, with no word of the wait left.
    expect(page.locator("#who-name")).to_contain_text("Signed in as Ada")
    expect(page.locator("#live")).to_contain_text("Live")
    expect(wait).to_have_count(0)
    expect(page.locator("form.sign-in")).to_have_count(0)


def test_a_player_is_linked_to_no_wallet_but_his_own(api, open_page, served):
    """Ada's table page linked Bob's name to /players/<Bob>, which answers her 403."""
    table, (ada, bob) = seated(api, "pirate-pairs")
    pg = at_table(open_page, ada, table)
    seats = pg.get_by_role("table", name="Seats and the treasure on each")
    expect(seats.get_by_role("link", name="Ada")).to_have_attribute("href", f"/players/{ada.id}")
    expect(seats.locator("tbody tr").nth(1)).to_contain_text("Bob")
    expect(seats.get_by_role("link", name="Bob")).to_have_count(0)
    # The operator may open every wallet: both are linked for him.
    operator = signed_in(open_page(), served.operator_key)
    operator.goto(f"/tables/{table}")
    op_seats = operator.get_by_role("table", name="Seats and the treasure on each")
    expect(op_seats.get_by_role("link", name="Bob")).to_have_attribute("href", f"/players/{bob.id}")
    expect(op_seats.get_by_role("link", name="Ada")).to_have_attribute("href", f"/players/{ada.id}")


def test_a_table_closed_before_its_first_hand_names_who_took_what_home(api, open_page, served):
    """With no hand dealt there is no hand's line-up to name the players: "What each seat took
    home" listed player ids. The viewer is named as himself, and for the operator each as the
    API names him; another player, whom a player may not read, is "a player who sat here" (as
    the page saw him seated he may have been erased since); a wallet is linked only for who may
    open it."""
    table, (ada, bob) = seated(api, "sette-e-mezzo")
    ada_pg = at_table(open_page, ada, table)
    expect(ada_pg.locator("table.seats tbody tr")).to_have_count(2)
    api.post(f"/v1/tables/{table}/close")
    took = ada_pg.get_by_role("table", name="What each seat took home")
    expect(took.locator("tbody tr")).to_have_count(2)
    expect(took.locator(f"tr[data-player='{ada.id}'] td").first).to_have_text("Ada (you)")
    expect(took.locator(f"tr[data-player='{bob.id}'] td").first).to_have_text("a player who sat here")
    expect(took.get_by_role("link")).to_have_count(1)
    expect(took).not_to_contain_text(re.compile(r"pl_[0-9a-f]"))
    # Bob, opening the over table afresh: himself by name; Ada he never saw seated.
    bob_pg = signed_in(open_page(), bob.token)
    bob_pg.goto(f"/tables/{table}")
    took = bob_pg.get_by_role("table", name="What each seat took home")
    expect(took.locator(f"tr[data-player='{bob.id}'] td").first).to_have_text("Bob (you)")
    expect(took.locator(f"tr[data-player='{ada.id}'] td").first).to_have_text("a player who sat here")
    expect(took).not_to_contain_text(re.compile(r"pl_[0-9a-f]"))
    # The operator may read every player: both by name, both linked.
    operator = signed_in(open_page(), served.operator_key)
    operator.goto(f"/tables/{table}")
    took = operator.get_by_role("table", name="What each seat took home")
    expect(took.locator(f"tr[data-player='{ada.id}'] td").first).to_have_text("Ada")
    expect(took.locator(f"tr[data-player='{bob.id}'] td").first).to_have_text("Bob")
    expect(took.get_by_role("link")).to_have_count(2)


def test_a_player_erased_while_the_page_was_open_is_not_named_in_the_tables_ending(api, open_page, served):
    """Erasing a player moves no table, so a page open on his table never read his name as
    erased: when the table was closed, "What each seat took home" named him as the page had
    seen him seated, to his table-mate and to the operator alike."""
    ada = api.new_player("Ada", deposit=100)
    zoe = api.new_player("Zoltana Erasable", deposit=100)
    table, _ = seated(api, "sette-e-mezzo", [ada, zoe])
    ada_pg = at_table(open_page, ada, table)
    operator = signed_in(open_page(), served.operator_key)
    operator.goto(f"/tables/{table}")
    for pg in (ada_pg, operator):
        expect(pg.locator("table.seats")).to_contain_text("Zoltana Erasable")
    api.post(f"/v1/players/{zoe.id}/erasure")
    api.post(f"/v1/tables/{table}/close")
    for pg, said in ((ada_pg, "a player who sat here"), (operator, "an erased player")):
        took = pg.get_by_role("table", name="What each seat took home")
        expect(took.locator(f"tr[data-player='{zoe.id}'] td").first).to_have_text(said)
        expect(pg.locator("body")).not_to_contain_text("Zoltana")


def test_a_seat_too_poor_to_be_dealt_in_is_told_why_and_what_to_do(api, open_page):
    """Cid's seat held less than the least bet: the hands were dealt without him and his page
    said only "Nothing for you to do now"."""
    players = [api.new_player(name, deposit=100) for name in ("Ada", "Bob", "Cid")]
    table = api.post("/v1/tables", {"game": "sette-e-mezzo",
                                    "options": {"min_bet": 2, "max_bet": 5, "turn_timeout_s": 600}})["id"]
    for p, buy_in in zip(players, (20, 20, 1), strict=True):
        api.post(f"/v1/tables/{table}/seats", {"buy_in": buy_in}, token=p.token)
    cid = players[2]
    pg = at_table(open_page, cid, table)
    told = pg.locator("#not-dealt-in")
    expect(told).to_contain_text(
        "Your seat holds 1, less than the least bet (2): the next hand will not deal you in.")
    expect(told).to_contain_text("A seat cannot be topped up: between hands, leave the table")
    api.post(f"/v1/tables/{table}/hands")
    view = api.get(f"/v1/tables/{table}", token=cid.token)
    assert view["status"] == "playing" and not view["legal_actions"]
    cid_seat = next(s["seat"] for s in view["seats"] if s["player_id"] == cid.id)
    assert cid_seat not in [h["seat"] for h in view["view"]["hands"]] + [view["view"]["bank"]["seat"]]
    shows_version(pg, view["version"])
    expect(told).to_contain_text(
        "Your seat holds 1, less than the least bet (2): you are not dealt in this hand.")
    expect(pg.get_by_role("region", name="Your move")).not_to_contain_text("Nothing for you to do now")


def test_a_finished_hands_open_bank_is_no_longer_said_to_be_in_play(page):
    """Casino pirate's meneur calls his players and never stands: his hand's status stays
    `open`, and the page said "in play" once the hand was over (on the replay's last step too)."""
    page.goto("/")
    badges = page.evaluate("""async () => {
        const {handView} = await import('/static/pages/table_views.js');
        const table = (phase) => ({game: 'casino-pirate', you: null, turn: null, options: {},
            seats: [{seat: 0, player_id: 'pl_a', name: 'Ann'}, {seat: 1, player_id: 'pl_b', name: 'Bob'}],
            view: {phase: {name: phase}, cards_left: 30, stake: 0, next_banker: null, results: [],
                   bank: {seat: 0, index: -1, stake: 0, status: 'open', cards: ['gem5.1'], face_up: [true]},
                   hands: [{seat: 1, index: 0, stake: 1, status: 'won', cards: [null], face_up: [false]}]}});
        const badges = (t) => {
            const box = document.createElement('div');
            box.append(...handView(t).filter(Boolean));
            return [...box.querySelectorAll('section.hand-box .hand-facts .badge')].map((b) => b.textContent);
        };
        return {playing: badges(table('banking')), ended: badges(table('ended'))};
    }""")
    assert badges == {"playing": ["in play", "won"], "ended": ["stayed in", "won"]}
