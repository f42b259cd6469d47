"""Every page of Banco's own on a phone and for assistive technology: at 390 px wide nothing
makes the page scroll sideways (wide tables become stacked rows), and axe-core, run in
Chromium at desktop and phone sizes, finds no serious or critical violation. Also the favicon
and the HTML page for an address that has none.

axe-core is pinned in tests/axe (installed by ./quickstart, else here) and evaluated in the page
through the browser's devtools protocol: the pages' CSP runs no inline script, and a script tag
added by the test would be one."""

from __future__ import annotations

import shutil
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import Api, Player, Served, signed_in
from tests.pages.test_table_page import shot

AXE = Path(__file__).resolve().parents[1] / "axe"
SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


def axe_source() -> str:
    """axe-core's script, as pinned in tests/axe."""
    script = AXE / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        assert npm, "npm is needed to install axe-core (tests/axe)"
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=AXE, check=True,
                       capture_output=True, timeout=600)
    return script.read_text(encoding="utf-8")


# Minor to axe-core, but a column without a name leaves a screen reader's user guessing.
ALSO = {"empty-table-header"}


def serious(page: Any, source: str) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now, and those of ALSO."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(source + "\n;0")
    found = page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map((v) => ({id: v.id, impact: v.impact,
            nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary).slice(0, 5)}));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['nodes']}" for v in found
            if v["impact"] in ("serious", "critical") or v["id"] in ALSO]


def sideways(page: Any) -> int:
    """How far the page scrolls sideways (0: it fits the screen)."""
    return page.evaluate(
        "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth")


def boxed(page: Any) -> list[str]:
    """The tables cut off by their box, to be scrolled inside it (their captions)."""
    return page.evaluate("""() => [...document.querySelectorAll('.table-wrap')]
        .filter((b) => b.scrollWidth > b.clientWidth + 1)
        .map((b) => (b.querySelector('caption') || b).textContent.slice(0, 40))""")


@pytest.fixture(scope="module")
def site(served: Served) -> dict[str, Any]:
    """Something on every page: a wallet with a history, a table with a hand in play, a settled
    hand, the console's players and checkpoints."""
    from tests.pages.test_hand_page import play

    api = Api(served)
    ada = api.new_player("Ada Lovelace", deposit=500)
    bob = api.new_player("Bob", deposit=500)
    api.post(f"/v1/players/{ada.id}/withdrawals", {"amount": 50, "reason": "cash out at the desk"})
    # Turns long enough that Bob is still to bet when the pages are visited.
    table = api.post("/v1/tables", {"game": "sette-e-mezzo", "options": {"turn_timeout_s": 600}})["id"]
    for p in (ada, bob):
        api.post(f"/v1/tables/{table}/seats", {"buy_in": 100}, token=p.token)
    api.post(f"/v1/tables/{table}/hands")
    api.post("/v1/audit/checkpoints")
    played = play(api, "cassino")
    return {"ada": ada, "bob": bob, "table": table, "hand": played.hand, "hand_player": played.players[0]}


def visits(site: dict[str, Any], served: Served) -> list[tuple[str, Player | None, str, str]]:
    """(name, who signs in, path, a selector shown once the page has drawn itself)."""
    operator = Player("operator", served.operator_key)
    turn = site["bob"]  # Ada banks: Bob is to bet first
    return [
        ("home", None, "/", "form.sign-in"),
        ("home signed in", site["ada"], "/", "#main h2"),
        ("wallet", site["ada"], f"/players/{site['ada'].id}", "img.chart:not([hidden])"),
        ("table", turn, f"/tables/{site['table']}", "ul.action-list button"),
        ("hand", site["hand_player"], f"/hands/{site['hand']}#step-20", "#browser-verdict"),
        ("console", operator, "/console", "#players tbody tr"),
        ("not found", None, "/no-such-page", "h1"),
        ("docs", None, "/docs", ".swagger-ui .info"),
    ]


@pytest.mark.parametrize("size", SIZES)
def test_every_page_fits_a_phone_and_axe_finds_nothing_serious(browser, served, site, size):
    source = axe_source()
    problems: list[str] = []
    signed_as: str | None = None
    context = browser.new_context(viewport=SIZES[size], base_url=served.url)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        for name, who, path, ready in visits(site, served):
            if who is not None and who.token != signed_as:
                if signed_as is not None:
                    page.evaluate("() => sessionStorage.clear()")
                signed_in(page, who.token)
                signed_as = who.token
            elif who is None and signed_as is not None:
                page.evaluate("() => sessionStorage.clear()")
                signed_as = None
            page.goto(path)
            expect(page.locator(ready).first).to_be_visible()
            shot(page, f"{size}-{name.replace(' ', '-')}")
            problems += [f"{name} ({path}): {v}" for v in serious(page, source)]
            if size == "phone" and (wide := sideways(page)):
                problems.append(f"{name} ({path}): scrolls {wide} px sideways")
            if name == "wallet" and (scale := page.evaluate(
                    "() => { const c = document.querySelector('img.chart');"
                    " return c.clientWidth / c.naturalWidth; }")) < 0.95:
                problems.append(f"{name}: the chart is shrunk to {scale:.0%}, and its labels with it")
            if size == "phone" and (boxes := boxed(page)):
                problems.append(f"{name} ({path}): tables scrolling inside their box: {boxes}")
    finally:
        context.close()
    assert not errors, errors
    assert not problems, "\n".join(problems)


def test_the_favicon_is_banco_s_own(served):
    """At the address browsers ask by default, and at the one the pages name."""
    for path in ("/favicon.ico", "/static/favicon.svg"):
        with urllib.request.urlopen(served.url + path) as r:
            assert r.status == 200
            assert r.headers["Content-Type"].split(";")[0] == "image/svg+xml"
            assert r.read().startswith(b"<svg")
    with urllib.request.urlopen(served.url + "/") as r:
        assert '<link rel="icon" href="/static/favicon.svg"' in r.read().decode()


def test_an_unknown_page_is_an_html_404_and_an_unknown_api_path_a_problem(page, served):
    response = page.goto("/tabels/tb_x")
    assert response is not None and response.status == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    expect(page.get_by_role("heading", name="Page not found")).to_be_visible()
    expect(page.get_by_role("main").get_by_role("link", name="landing page")).to_have_attribute("href", "/")
    expect(page.locator("#who-name")).to_have_text("Not signed in")
    # The API's clients, and a browser asking for an API path, still get problem+json.
    for path, accept in (("/v1/no-such-thing", "text/html,*/*;q=0.8"), ("/tabels/tb_x", "*/*"),
                         ("/tabels/tb_x", "application/json")):
        request = urllib.request.Request(served.url + path, headers={"Accept": accept})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(request)
        assert e.value.code == 404
        assert e.value.headers["Content-Type"] == "application/problem+json", (path, accept)
        assert b'"code":"not_found"' in e.value.read()




@pytest.mark.parametrize("size", SIZES)
def test_the_docs_widgets_pass_axe_open_and_tried_out(browser, served, size):
    """Swagger UI's own widgets, as a reader opens them: the authorization dialog, an operation
    tried out and executed (its response, its curl command), a parameter table and a schema."""
    source = axe_source()
    problems: list[str] = []
    context = browser.new_context(viewport=SIZES[size], base_url=served.url)
    try:
        page = context.new_page()
        page.goto("/docs")
        expect(page.locator(".swagger-ui .info").first).to_be_visible()
        page.get_by_role("button", name="Authorize").first.click()
        expect(page.get_by_role("heading", name="Available authorizations")).to_be_visible()
        problems += [f"authorize: {v}" for v in serious(page, source)]
        page.get_by_role("button", name="Close").first.click()
        games = page.locator("#operations-games-listGames")
        games.locator(".opblock-summary-control").click()
        games.get_by_role("button", name="Try it out").click()
        games.get_by_role("button", name="Execute").click()
        expect(games.locator(".live-responses-table tbody .response-col_status").first).to_have_text("200")
        expect(games.get_by_label("The request as a curl command")).to_contain_text("/v1/games")
        tables = page.locator("#operations-tables-listTables")
        tables.locator(".opblock-summary-control").click()
        tables.get_by_role("button", name="Try it out").click()
        expect(tables.locator("tr[data-param-name='game']")).to_be_visible()
        page.locator("section.models .model-container").first.locator(".model-box-control").first.click()
        problems += [f"tried out: {v}" for v in serious(page, source)]
        shot(page, f"{size}-docs-tried")
    finally:
        context.close()
    assert not problems, "\n".join(problems)


LONG_NAME = "alexander.wolfeschlegel@example.org"  # a name with no space to break it at
GAMES = ["sette-e-mezzo", "siete-y-media", "casino-pirate", "pirate-pairs", "cassino"]


def test_a_long_name_fits_a_phone_and_moves_showing_cards_pass_axe_in_every_game(browser, served):
    """At 375 px a name with no space in it (an e-mail address) made the table page scroll 400
    to 590 px sideways in all five games. And the moves that show their card ("Trail 5 of
    clubs", "Choose pirate pair 7 as opening card") were named otherwise than they read
    (axe's label-content-name-mismatch, WCAG 2.5.3). Every game, mid-hand, both players."""
    api = Api(served)
    source = axe_source()
    problems: list[str] = []
    context = browser.new_context(viewport={"width": 375, "height": 800}, base_url=served.url)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        for game in GAMES:
            players = [api.new_player(LONG_NAME, deposit=100), api.new_player("Bob", deposit=100)]
            options = {"turn_timeout_s": 600}
            if game not in ("cassino", "pirate-pairs"):
                options["banker_timeout_s"] = 600
            table = api.post("/v1/tables", {"game": game, "options": options})["id"]
            for age, p in zip((70, 30), players, strict=True):
                join = {"age": age} if game == "casino-pirate" else {"buy_in": 20, "age": age}
                api.post(f"/v1/tables/{table}/seats", join, token=p.token)
            api.post(f"/v1/tables/{table}/hands")
            offered = []
            for p in players:
                if page.url.startswith(served.url):
                    page.evaluate("() => sessionStorage.clear()")
                signed_in(page, p.token)
                page.goto(f"/tables/{table}")
                view = api.get(f"/v1/tables/{table}", token=p.token)
                expect(page.locator("#table-version")).to_have_text(str(view["version"]))
                expect(page.locator("section.hand-box").first).to_be_visible()
                offered += page.locator("ul.action-list button").all_inner_texts()
                who = "the long-named player" if p is players[0] else "Bob"
                if wide := sideways(page):
                    problems.append(f"{game}, as {who}: scrolls {wide} px sideways")
                problems += [f"{game}, as {who}: {v}" for v in serious(page, source)]
                shot(page, f"phone-long-name-{game}-{'long' if p is players[0] else 'bob'}")
            if game in ("cassino", "pirate-pairs"):
                assert any(" of " in text or "pair" in text for text in offered), (game, offered)
    finally:
        context.close()
    assert not errors, errors
    assert not problems, "\n".join(problems)


def test_an_eliminated_pirate_pairs_player_reads_at_full_contrast(page, served):
    """A Pirate pairs player out while the game goes on had his box faded to 60 %: its text
    fell to 3.7:1 on the felt (axe's color-contrast, serious), on the table page and on the
    hand's replay. Three players, one accused out, the other two still playing."""
    import random

    api = Api(served)
    source = axe_source()
    rng = random.Random(5)
    players = [api.new_player(f"Pair {n}", deposit=100) for n in range(3)]
    table = api.post("/v1/tables", {"game": "pirate-pairs", "options": {"turn_timeout_s": 600}})["id"]
    for age, p in zip((60, 40, 20), players, strict=True):
        api.post(f"/v1/tables/{table}/seats", {"buy_in": 20, "age": age}, token=p.token)
    hand = api.post(f"/v1/tables/{table}/hands")["hand"]["id"]
    for _ in range(200):
        views = [api.get(f"/v1/tables/{table}", token=p.token) for p in players]
        assert views[0]["status"] == "playing", "the game ended before anyone was out"
        if any(not q["in"] for q in views[0]["view"]["players"]):
            break
        mover, view = rng.choice([(p, v) for p, v in zip(players, views, strict=True) if v["legal_actions"]])
        # An accusation puts someone out, the accuser or the accused.
        actions = [a for a in view["legal_actions"] if a["type"] == "accuse"] or view["legal_actions"]
        api.call("POST", f"/v1/tables/{table}/actions", json=rng.choice(actions), token=mover.token,
                 headers={"If-Match": f'"{view["version"]}"'})
    else:
        raise AssertionError("nobody was put out")
    out = next(q for q in views[0]["view"]["players"] if not q["in"])
    watcher = next(p for n, p in enumerate(players) if n != out["seat"])
    signed_in(page, watcher.token)
    page.goto(f"/tables/{table}")
    gone = page.locator("section.hand-box.gone")
    expect(gone).to_have_count(1)
    expect(gone).to_contain_text("out")
    assert serious(page, source) == []

    page.get_by_role("button", name="Sign out").click()
    signed_in(page, api.new_auditor().token)  # an auditor sees a hand's replay while it is played
    page.goto(f"/hands/{hand}")
    expect(page.locator("#step-position")).to_contain_text("Step 1 of")
    page.keyboard.press("End")
    expect(page.locator("section.hand-box.gone")).to_have_count(1)
    assert serious(page, source) == []


# The focused control's outline against every colour behind it (its first opaque ancestor's
# background, each colour of a gradient): the least contrast ratio, as WCAG computes it.
FOCUS_CONTRAST = """(el) => {
  if (!el.isConnected) return null;  // drawn again since it was found: ask again
  const colours = (text) => (text.match(/rgba?\\([^)]*\\)/g) || [])
    .map((c) => c.match(/[\\d.]+/g).map(Number));
  const lum = ([r, g, b]) => [r, g, b].map((v) => v / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
    .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => (Math.max(lum(a), lum(b)) + 0.05) / (Math.min(lum(a), lum(b)) + 0.05);
  const style = getComputedStyle(el);
  const outline = colours(style.outlineColor)[0];
  for (let n = el.parentElement; n; n = n.parentElement) {
    const s = getComputedStyle(n);
    const behind = [...colours(s.backgroundImage),
      ...colours(s.backgroundColor).filter((c) => c.length < 4 || c[3] > 0)];
    const least = Math.min(...behind.map((c) => ratio(outline, c)));
    if (behind.length) return { width: style.outlineWidth, least };
  }
  return { width: style.outlineWidth, least: ratio(outline, [255, 255, 255]) };
}"""


def focus_contrast(page: Any, control: Any) -> Any:
    """FOCUS_CONTRAST of `control`, focused. A page that draws itself again (the table page
    does as its stream brings the table) may replace the control between its focus and the
    look at it: it is focused and looked at again."""
    for _ in range(50):
        control.focus()
        found = control.evaluate(FOCUS_CONTRAST)
        if found is not None:
            return found
        page.wait_for_timeout(100)
    raise AssertionError("the control never stayed on the page long enough to be looked at")


def test_the_focus_ring_stands_out_from_what_is_around_it(page, served):
    """The focus ring was gold everywhere: 1.9:1 on the white panels and 1.7:1 on the paper,
    under the 3:1 WCAG 1.4.11 asks of it (axe does not look). It is dark on the light page and
    gold on the green header and felt: at least 3:1 around each control below."""
    api = Api(served)
    ada, bob = api.new_player("Ring Ada", deposit=50), api.new_player("Ring Bob", deposit=50)
    table = api.post("/v1/tables", {"game": "cassino"})["id"]
    for p in (ada, bob):
        api.post(f"/v1/tables/{table}/seats", {"buy_in": 10}, token=p.token)
    signed_in(page, served.operator_key)
    controls = {"a panel's button": page.get_by_role("button", name="Register the player"),
                "the header's button": page.get_by_role("button", name="Sign out"),
                "a link on the paper": page.get_by_role("link", name="Skip to content")}
    found = {}
    for name, control in controls.items():
        page.goto("/console")
        page.keyboard.press("Tab")  # keyboard focus, which :focus-visible shows
        found[name] = focus_contrast(page, control)
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    deal = page.get_by_role("button", name="Deal the first hand")
    page.keyboard.press("Tab")
    found["the table page's Deal"] = focus_contrast(page, deal)
    assert all(f["width"] == "3px" for f in found.values()), found
    assert all(f["least"] >= 3 for f in found.values()), found
