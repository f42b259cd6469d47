"""Names people chose are drawn on their own: a bidi control in one (an unclosed RIGHT-TO-LEFT
OVERRIDE) or right-to-left letters must not reorder the pages' words around it."""

from __future__ import annotations

import random
import time
from typing import Any

from playwright.sync_api import expect

from tests.games.test_sevenhalf_properties import concrete
from tests.pages.conftest import Api, Player, signed_in

RLO = "\u202e"
MALLORY = f"Mallory{RLO}"
FSI, PDI = "\u2068", "\u2069"

# Every place in the page where `name` shows, in text or in an attribute a person may read (a
# label, a tooltip) or the tab's title, that is not set between FSI and PDI.
UNISOLATED = """(name) => {
    const bad = [];
    const look = (where, s) => {
        let i = s.indexOf(name);
        while (i >= 0) {
            if (s[i - 1] !== '\\u2068' || s[i + name.length] !== '\\u2069') bad.push(`${where}: ${s}`);
            i = s.indexOf(name, i + 1);
        }
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) look(n.parentElement.tagName, n.data);
    for (const e of document.querySelectorAll('[aria-label], [title]')) {
        look('aria-label', e.getAttribute('aria-label') || '');
        look('title', e.getAttribute('title') || '');
    }
    look('document.title', document.title);
    return bad;
}"""

# The left edge on screen of each character of `word`, in the first text node under `css` that
# holds `name` followed (somewhere after it) by `word`.
EDGES = """([css, name, word]) => {
    for (const box of document.querySelectorAll(css)) {
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const at = n.data.indexOf(name);
            const start = at < 0 ? -1 : n.data.indexOf(word, at + name.length);
            if (start < 0) continue;
            return [...word].map((_, k) => {
                const r = document.createRange();
                r.setStart(n, start + k);
                r.setEnd(n, start + k + 1);
                return r.getBoundingClientRect().left;
            });
        }
    }
    return null;
}"""


def isolated_everywhere(pg: Any) -> None:
    expect(pg.locator("body")).to_contain_text(MALLORY)
    assert pg.evaluate(UNISOLATED, MALLORY) == []


def reads_left_to_right(pg: Any, css: str, word: str) -> None:
    """`word`, after Mallory's name in `css`, is drawn in its order: each letter right of the one
    before. Her override, left open, drew it backwards ("ruenem")."""
    edges = pg.evaluate(EDGES, [css, MALLORY, word])
    assert edges, f"no {word!r} after the name in {css}"
    assert edges == sorted(edges) and len(set(edges)) == len(edges), (css, word, edges)


def settle_a_hand(api: Api, table: str, players: list[Player]) -> str:
    """The hand in play, played to its settlement with random legal moves over the API."""
    rng = random.Random(5)
    hand = api.get(f"/v1/tables/{table}")["hand"]["id"]
    for _ in range(500):
        views = {p.id: api.get(f"/v1/tables/{table}", token=p.token) for p in players}
        if next(iter(views.values()))["status"] != "playing":
            break
        p = rng.choice([p for p in players if views[p.id]["legal_actions"]])
        action = concrete(rng.choice(views[p.id]["legal_actions"]), rng)
        api.call("POST", f"/v1/tables/{table}/actions", json=action, token=p.token,
                 headers={"If-Match": f'"{views[p.id]["version"]}"'})
    deadline = time.monotonic() + 60
    while api.get(f"/v1/hands/{hand}")["status"] != "settled":
        assert time.monotonic() < deadline, "the hand was not settled"
        time.sleep(0.05)
    return hand


def test_a_name_with_an_unclosed_override_reorders_nothing_around_it(api, page, served):
    mallory = api.new_player(MALLORY, deposit=100)
    bob = api.new_player("Bob", deposit=100)
    table = api.post("/v1/tables", {"game": "casino-pirate", "options": {}})["id"]
    # The oldest player is the meneur: Mallory, in seat 1.
    api.post(f"/v1/tables/{table}/seats", {"buy_in": 10, "age": 70}, token=mallory.token)
    api.post(f"/v1/tables/{table}/seats", {"buy_in": 10, "age": 20}, token=bob.token)
    api.post(f"/v1/tables/{table}/hands")

    signed_in(page, bob.token)
    page.goto(f"/tables/{table}")
    expect(page.locator("#live")).to_contain_text("Live")
    expect(page.locator("section.felt h3", has_text="meneur")).to_be_visible()
    reads_left_to_right(page, "section.felt h3", "meneur")
    box = page.get_by_role("region", name=f"Seat 1 · {FSI}{MALLORY}{PDI} · meneur")
    expect(box).to_be_visible()
    isolated_everywhere(page)

    # Her own page: the header, her seat, "(you, …)".
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, mallory.token)
    reads_left_to_right(page, "#who-name", "player")
    page.goto(f"/tables/{table}")
    expect(page.locator("#live")).to_contain_text("Live")
    isolated_everywhere(page)
    page.goto(f"/players/{mallory.id}")
    expect(page.get_by_role("heading", name=f"Wallet of {FSI}{MALLORY}{PDI}")).to_be_visible()
    isolated_everywhere(page)

    # The settled hand's replay, each step's seats and turn, as Bob reads it.
    hand = settle_a_hand(api, table, [mallory, bob])
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, bob.token)
    page.goto(f"/hands/{hand}")
    expect(page.locator("#step-position")).to_contain_text("Step 1 of")
    page.keyboard.press("End")
    expect(page.locator("#step-detail")).to_contain_text(MALLORY)
    isolated_everywhere(page)

    # The console's lists, the desk's answers.
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, served.operator_key)
    page.goto("/console")
    expect(page.locator("#players tbody tr", has_text=mallory.id)).to_contain_text(MALLORY)
    isolated_everywhere(page)
