"""The first hour, from the pages alone: on an empty Banco the operator registers two players and
deposits for them on the console, creates a table of each game there, the players sit down,
deal and play a hand to its settlement by clicking the table page's moves, and open its replay.
The test itself calls no API: every request is a page's, and none leaves Banco."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.conftest import fresh_database
from tests.pages.conftest import Served, serving, signed_in
from tests.pages.test_room import deposit, register
from tests.pages.test_table_page import moves, shot

# Every game Banco serves (GET /v1/games), and the moves a player prefers when offered:
# standing ends a hand sooner than drawing.
GAMES = {"sette-e-mezzo": ("Stand",), "siete-y-media": ("Stand",),
         "casino-pirate": ("Stand", "Reveal"), "pirate-pairs": ("Stand",), "cassino": ()}


@pytest.fixture(scope="module")
def empty(servers: Any, redis_url: str) -> Iterator[Served]:
    """A Banco of its own, on a database nobody else has written to."""
    with fresh_database(servers.database_url, "banco_first_hour") as url, \
            serving(url, redis_url, "first-hour") as served:
        yield served


class Room:
    """The three people in front of the pages: the operator and two players, each with his own
    browser (a context, so a sessionStorage, of his own)."""

    def __init__(self, browser: Any, served: Served) -> None:
        self.browser = browser
        self.served = served
        self.errors: list[str] = []
        self.requested: list[str] = []
        self.contexts: list[Any] = []
        self.operator = self.open()
        self.players: dict[str, Any] = {}
        self.auditor: Any = None

    def open(self) -> Any:
        context = self.browser.new_context(viewport={"width": 1280, "height": 900},
                                           base_url=self.served.url)
        self.contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        pg.on("console", lambda m: self.errors.append(m.text)
              if "Content Security Policy" in m.text else None)
        pg.on("request", lambda r: self.requested.append(r.url))
        return pg


@pytest.fixture(scope="module")
def room(browser: Any, empty: Served) -> Iterator[Room]:
    """The operator registers Ada and Bob on the console of an empty Banco and deposits for
    them, and registers Carol, an auditor; each signs in with the token the console showed once."""
    r = Room(browser, empty)
    try:
        op = signed_in(r.operator, empty.operator_key)
        op.goto("/console")
        expect(op.locator("#players")).to_contain_text("No player yet.")
        tokens = {name: register(op, name) for name in ("Ada", "Bob")}
        for name in tokens:
            deposit(op, name, 500)
        op.get_by_label("Auditor's name").fill("Carol")
        op.get_by_role("button", name="Register the auditor").click()
        expect(op.locator("#auditor-note")).to_contain_text("Registered auditor Carol")
        r.auditor = signed_in(r.open(), op.locator("#auditor-note code").inner_text())
        for name, token in tokens.items():
            r.players[name] = signed_in(r.open(), token)
        yield r
    finally:
        for context in r.contexts:
            context.close()
    banco = urlsplit(empty.url).netloc
    away = [u for u in r.requested if urlsplit(u).scheme in ("http", "https")
            and urlsplit(u).netloc != banco]
    assert not r.errors, r.errors
    assert not away, away


def create_table(op: Any, game: str) -> str:
    """A table of `game` from the console's form, its options as the form fills them in."""
    op.goto("/console")
    op.get_by_label("Table game").select_option(game)
    op.get_by_role("button", name="Create the table").click()
    link = op.locator("#table-created a")
    expect(link).to_be_visible()
    return link.inner_text()


def sit(pg: Any, table: str) -> None:
    pg.goto(f"/tables/{table}")
    expect(pg.locator("#live")).to_contain_text("Live")
    pg.get_by_role("button", name="Sit down").click()
    expect(pg.get_by_role("button", name="Leave the table")).to_be_visible()


def play_out(pages: list[Any], prefer: tuple[str, ...], moves_at_most: int = 200) -> int:
    """Click moves on whichever page offers some until a page says the hand is over; the moves
    made. A page offers moves only to the player whose turn it is."""
    made = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if made and any(pg.locator("#turn-text").inner_text().startswith(
                ("Between hands", "Between rounds", "The table is over")) for pg in pages):
            return made
        acted = False
        for pg in pages:
            offered = moves(pg)
            if not offered.count() or not offered.first.is_enabled() or offered.filter(
                    has_text=re.compile("^Deal the")).count():
                continue
            version = pg.locator("#table-version").inner_text()
            chosen = next((offered.filter(has_text=re.compile(f"^{p}$")) for p in prefer
                           if offered.filter(has_text=re.compile(f"^{p}$")).count()), offered)
            try:
                chosen.first.click(timeout=2000)
            except PlaywrightError:  # the page redrew its controls under the click: look again
                continue
            expect(pg.locator("#table-version")).not_to_have_text(version)
            made += 1
            acted = True
            assert made <= moves_at_most, f"the hand did not end in {moves_at_most} moves"
        if not acted:
            pages[0].wait_for_timeout(100)
    raise AssertionError("the hand never ended")


@pytest.mark.parametrize("game", GAMES)
def test_a_hand_of_each_game_from_an_empty_banco_through_the_pages_alone(room, game):
    ada, bob = room.players["Ada"], room.players["Bob"]
    table = create_table(room.operator, game)
    for pg in (ada, bob):
        sit(pg, table)
    expect(ada.locator("table.seats")).to_contain_text("Bob")
    expect(bob.locator("table.seats")).to_contain_text("Ada")
    ada.get_by_role("button", name="Deal the first hand").click()
    expect(ada.locator("#turn-text")).not_to_contain_text("Between hands")
    made = play_out([ada, bob], GAMES[game])
    assert made > 0
    shot(bob, f"first-hour-{game}")

    # The settled hand, replayed: every step, and the deck checked again in the browser.
    replay = bob.get_by_role("link", name="#1", exact=True)
    expect(replay.locator("xpath=..")).to_have_text("Hand #1 (settled)")
    expect(replay).to_be_visible()
    replay.click()
    expect(bob).to_have_url(re.compile(r"/hands/"))
    position = bob.locator("#step-position")
    expect(position).to_have_text(re.compile(r"^Step 1 of \d+$"))
    n = int(position.inner_text().split()[-1])
    assert n > made  # the deal, every move, the settlement
    bob.keyboard.press("End")
    expect(position).to_have_text(f"Step {n} of {n}")
    expect(bob.get_by_role("heading", name="Postings")).to_be_visible()
    seats = bob.locator("#step-detail").get_by_role("table", name="Seats and the treasure on each")
    # Each by name; only his own wallet linked: Ada's would answer Bob 403.
    expect(seats.get_by_text("Ada", exact=True)).to_be_visible()
    expect(seats.get_by_role("link", name="Ada", exact=True)).to_have_count(0)
    expect(seats.get_by_role("link", name="Bob", exact=True)).to_be_visible()
    checks = bob.locator("tr[data-check] td.server")
    expect(checks.first).to_be_visible()
    for check in checks.all():
        expect(check).to_contain_text("passed")
    verdict = bob.locator("#browser-verdict")
    expect(verdict).to_contain_text(re.compile("^(Passed|Not checked) in this browser"))
    if "Not checked" in verdict.inner_text():
        # A deck that stays in play between hands keeps its seed for auditors' eyes.
        expect(verdict).to_contain_text("needs an auditor's token")
    # The auditor checks every card in his browser.
    room.auditor.goto(bob.url)
    expect(room.auditor.locator("#browser-verdict")).to_contain_text("Passed in this browser")
