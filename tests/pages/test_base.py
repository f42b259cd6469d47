"""What every page stands on: static shells under a strict CSP, the landing page's sign-in with
the token kept in sessionStorage only, and banco.js's API calls, cards and table stream."""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import signed_in, until

PAGES = {"/": "home", "/tables/tb_x": "table", "/hands/hd_x": "hand", "/players/pl_x": "player",
         "/console": "console"}


@pytest.mark.parametrize("path", PAGES)
def test_a_page_is_a_static_shell_under_a_csp(served, path):
    with urllib.request.urlopen(served.url + path) as r:
        html = r.read().decode()
        assert r.headers["Content-Type"].startswith("text/html")
        csp = r.headers["Content-Security-Policy"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"  # for browsers that ignore frame-ancestors
    assert "script-src 'self';" in csp and "style-src 'self';" in csp and "unsafe" not in csp
    assert "frame-ancestors 'none'" in csp
    assert f'<script type="module" src="/static/pages/{PAGES[path]}.js"></script>' in html
    # No data, not even the id of the URL, no inline script or style.
    assert "_x" not in html and "<script>" not in html and "style=" not in html
    for asset in ("/static/banco.js", "/static/banco.css", "/static/pages/home.js"):
        with urllib.request.urlopen(served.url + asset) as r:
            assert r.headers["Content-Security-Policy"] == csp
            assert r.headers["Content-Type"].split(";")[0] in (
                "text/javascript", "application/javascript", "text/css")


def test_signing_in_keeps_the_token_in_session_storage_only(page, api):
    ada = api.new_player("Ada")
    table = api.post("/v1/tables", {"game": "cassino"})
    page.goto("/")
    expect(page.get_by_role("heading", name="What Banco is")).to_be_visible()
    expect(page.get_by_role("link", name="API reference")).to_have_attribute("href", "/docs")
    # A wrong token is refused, in the page.
    page.get_by_label("Token").fill("bnc_wrong")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("401")
    signed_in(page, ada.token)
    expect(page.locator("#who-name")).to_have_text(f"Signed in as Ada (player {ada.id})")
    expect(page.get_by_role("link", name=table["id"])).to_have_attribute("href", f"/tables/{table['id']}")
    expect(page.get_by_role("link", name="My wallet")).to_be_visible()
    expect(page.get_by_role("link", name="Console")).to_be_hidden()
    assert page.evaluate("sessionStorage.getItem('banco.token')") == ada.token
    assert page.context.cookies() == []
    assert ada.token not in page.url
    # Another tab of the same browser is signed out: sessionStorage is the tab's.
    other = page.context.new_page()
    other.goto("/")
    expect(other.locator("#who-name")).to_have_text("Not signed in")
    other.close()
    page.get_by_role("button", name="Sign out").click()
    expect(page.locator("#who-name")).to_have_text("Not signed in")
    assert page.evaluate("sessionStorage.getItem('banco.token')") is None


def test_banco_js_calls_the_api_and_draws_cards(page, api):
    ada = api.new_player("Ada")
    signed_in(page, ada.token)
    got = page.evaluate("""async () => {
        const b = await import('/static/banco.js');
        const me = await b.whoami();
        let problem = null;
        try { await b.api('/v1/players/pl_nobody'); } catch (e) {
            problem = [e instanceof b.ApiProblem, e.status, e.code]; }
        const cards = ['Qh', '10d', '7o', '12c', 'gem5.2', null].map(
            (id) => b.card(id).getAttribute('aria-label'));
        return {me, problem, cards, back: b.card(null).className};
    }""")
    assert {k: got["me"][k] for k in ("role", "id", "name", "scopes")} == {
        "role": "player", "id": ada.id, "name": "Ada", "scopes": []}
    assert got["me"]["key_id"].startswith("tk_")  # his token's id, never the token
    assert got["problem"] == [True, 403, "forbidden"]
    assert got["cards"] == ["queen of hearts", "10 of diamonds", "7 of oros", "rey of copas", "gem 5",
                            "face-down card"]
    assert got["back"] == "card back"


def test_follow_reads_a_tables_stream_with_the_token(page, api):
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table = api.post("/v1/tables", {"game": "sette-e-mezzo"})["id"]
    for p in (ada, bob):
        api.post(f"/v1/tables/{table}/seats", {"buy_in": 20}, token=p.token)
    signed_in(page, ada.token)
    page.evaluate("""async (table) => {
        const b = await import('/static/banco.js');
        window.seen = {tables: [], events: []};
        b.follow(table, (t) => window.seen.tables.push(t), (e) => window.seen.events.push(e));
    }""", table)
    until(page, "() => window.seen.tables.length > 0")
    first = page.evaluate("window.seen.tables[0]")
    assert first["id"] == table and first["you"] is not None
    hand = api.post(f"/v1/tables/{table}/hands")["hand"]["id"]
    until(page, "() => window.seen.events.some((e) => e.type === 'HandStarted')")
    events = page.evaluate("window.seen.events")
    assert {e["hand"] for e in events if e["hand"]} == {hand}
    assert [e["version"] for e in events] == sorted({e["version"] for e in events})


def test_spanish_and_pirate_cards_read_in_words_without_an_emoji_font(page):
    """Their suits were emoji alone, drawn as boxes where no emoji font is (as on this
    machine): each card now shows its suit's word too, the emoji only where the browser can
    draw it, and reads its rank and suit as words."""
    page.goto("/")
    page.evaluate("""async () => {
        const b = await import('/static/banco.js');
        const row = document.createElement('div');
        row.id = 'cards';
        row.append(...['7o', '12c', '1e', '10b', 'gem5.2', 'gold.1', 'pebble.3', 'skeleton.1', 'Qh']
            .map((id) => b.card(id)));
        document.querySelector('main').append(row);
    }""")
    cards = page.locator("#cards")
    shown = {"7 of oros": ("7", "oros"), "rey of copas": ("12", "copas"), "as of espadas": ("1", "espadas"),
             "sota of bastos": ("10", "bastos"), "gem 5": ("5", "gem"),
             "gold coin, worth a half": ("½", "gold"), "pebble, worth nothing": ("0", "pebble"),
             "skeleton, worth what its holder declares": ("★", "skeleton")}
    for label, (rank, word) in shown.items():
        one = cards.get_by_role("img", name=label, exact=True)
        expect(one).to_have_attribute("title", label)
        expect(one.locator(".rank")).to_have_text(rank)
        expect(one.locator(".suit-word")).to_have_text(word)
        expect(one.locator(".suit-word")).to_be_visible()
    expect(cards.get_by_role("img", name="queen of hearts", exact=True)).to_have_text("Q♥")
    # Where the browser would draw a box, no emoji is shown: only the words read.
    drawn = page.evaluate("""async () => {
        const b = await import('/static/banco.js');
        return {missing: b.canDraw('\\u{10FFFE}'), shown: [...document.querySelectorAll('#cards .suit.emoji')]
            .map((s) => [s.textContent, b.canDraw(s.textContent)])};
    }""")
    assert drawn["missing"] is False
    assert all(ok for _, ok in drawn["shown"]), drawn


def test_games_are_shown_by_their_titles_wherever_people_read_them(page, api, served):
    """Lists, headings and a hand's summary showed a game's internal name ("casino-pirate"):
    people read the title GET /v1/games gives ("Casino pirate")."""
    from tests.pages.test_hand_page import play

    titles = {g["name"]: g["title"] for g in api.get("/v1/games")}
    assert titles["casino-pirate"] == "Casino pirate" and titles["pirate-pairs"] == "Pirate pairs"
    ada = api.new_player("Titled Ada", deposit=100)
    table = api.post("/v1/tables", {"game": "casino-pirate"})["id"]
    api.post(f"/v1/tables/{table}/seats", {"age": 30}, token=ada.token)
    signed_in(page, ada.token)

    def listed(where: Any) -> Any:
        return where.locator("tr", has=page.get_by_role("link", name=table, exact=True))

    expect(listed(page.locator("#main"))).to_contain_text("Casino pirate")
    expect(listed(page.locator("#main"))).not_to_contain_text("casino-pirate")
    page.goto("/players/me")
    expect(listed(page.locator("#player-tables"))).to_contain_text("Casino pirate")
    expect(listed(page.locator("#player-tables"))).not_to_contain_text("casino-pirate")
    page.goto(f"/tables/{table}")
    expect(page.locator("h1")).to_have_text(f"Casino pirate · table {table}")
    expect(page).to_have_title(f"Casino pirate {table} · Banco")

    played = play(api, "pirate-pairs")
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, played.players[0].token)
    page.goto(f"/hands/{played.hand}")
    expect(page.get_by_role("region", name="Hand").locator(".lead")).to_contain_text("Pirate pairs · hand 1")
    expect(page.get_by_role("region", name="Hand")).not_to_contain_text("pirate-pairs")

    page.get_by_role("button", name="Sign out").click()
    signed_in(page, served.operator_key)
    page.goto("/console")
    expect(listed(page.locator("#tables"))).to_contain_text("Casino pirate")
    expect(listed(page.locator("#tables"))).not_to_contain_text("casino-pirate")
