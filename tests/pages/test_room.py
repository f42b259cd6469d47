"""Running a room from the pages alone: the operator registers players, deposits, creates a
table, erases and closes; players sit down and leave; everyone is shown by name."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import signed_in


@pytest.fixture
def second(browser: Any, served: Any) -> Iterator[Any]:
    """Another person's browser: a context of its own (its own sessionStorage)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=served.url)
    errors: list[str] = []
    pg = context.new_page()
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield pg
    finally:
        context.close()
    assert not errors, errors


def register(page: Any, name: str) -> str:
    """Register `name` on the console; the token it shows once."""
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_role("button", name="Register the player").click()
    note = page.locator("#registered")
    expect(note).to_contain_text(f"Registered {name}")
    return note.locator("code").inner_text()


def deposit(page: Any, name: str, amount: int) -> None:
    page.get_by_role("button", name=re.compile(f"^Manage {name} ")).click()
    expect(page.locator("#desk-name")).to_have_text(name)
    page.get_by_label("Deposit amount").fill(str(amount))
    page.get_by_role("button", name="Deposit", exact=True).click()
    expect(page.locator("#desk-note")).to_contain_text(f"balance now {amount}")


def sit(page: Any, token: str, table_url: str, buy_in: int) -> None:
    signed_in(page, token)
    page.goto(table_url)
    page.get_by_label("Buy-in").fill(str(buy_in))
    page.get_by_role("button", name="Sit down").click()
    expect(page.get_by_role("button", name="Leave the table")).to_be_visible()


def test_a_room_run_from_the_pages(page, second, served, api):
    ada, bob = f"Ada {secrets.token_hex(3)}", f"Bob {secrets.token_hex(3)}"
    signed_in(page, served.operator_key)
    page.goto("/console")
    ada_token, bob_token = register(page, ada), register(page, bob)
    assert ada_token != bob_token and ada_token.startswith("bnc_")
    deposit(page, ada, 100)
    deposit(page, bob, 80)

    # A table from the game's own options, defaults filled in by the form.
    page.get_by_label("Table game").select_option("sette-e-mezzo")
    expect(page.get_by_label(re.compile("^max bet"))).to_have_value(re.compile(r"\d+"))
    page.get_by_role("button", name="Create the table").click()
    link = page.locator("#table-created a")
    expect(link).to_be_visible()
    table_id = link.inner_text()
    table_url = f"/tables/{table_id}"

    # Each player sits down from the table page, with his buy-in.
    sit(second, ada_token, table_url, 40)
    seats = second.locator("table.seats")
    expect(seats).to_contain_text(ada)
    expect(seats.get_by_role("link", name=ada)).to_have_attribute("title", re.compile("^pl_|."))
    other = page.context.browser.new_context(base_url=served.url)
    try:
        third = other.new_page()
        sit(third, bob_token, table_url, 30)
        # Both, by name, on each one's page; chairs 1 and 2.
        expect(third.locator("table.seats")).to_contain_text(ada)
        expect(seats).to_contain_text(bob)
        expect(seats.locator("tbody th")).to_have_text(["1", "2"])
        # Ada's wallet lists the table she sits at.
        second.goto("/players/me")
        expect(second.locator("#player-tables")).to_contain_text(table_id)

        # Ada leaves between hands; Bob keeps his chair.
        second.goto(table_url)
        second.get_by_role("button", name="Leave the table").click()
        expect(second.get_by_role("button", name="Sit down")).to_be_visible()
        expect(third.locator("table.seats tbody tr")).to_have_count(1)
        expect(third.locator("table.seats tbody th")).to_have_text(["2"])
        expect(third.locator("table.seats")).not_to_contain_text(ada)
    finally:
        other.close()

    # The operator erases Bob, after a confirmation that says what it does.
    page.goto("/console")
    page.get_by_role("button", name=re.compile(f"^Manage {bob} ")).click()
    page.get_by_role("button", name="Erase…").click()
    expect(page.locator("#erase-confirm")).to_contain_text("cannot be undone")
    page.get_by_role("button", name=f"Yes, erase {bob}").click()
    expect(page.locator("#desk-note")).to_contain_text("is erased")
    # At the table he reads as erased, to whoever looks.
    second.reload()
    expect(second.locator("table.seats tbody td").first).to_have_text("erased")

    # The operator closes the table: Bob's seat goes back to his wallet.
    page.get_by_role("button", name=f"Close table {table_id}").click()
    expect(page.get_by_role("button", name=f"Close table {table_id}")).to_have_count(0)
    assert api.get(f"/v1/tables/{table_id}")["status"] == "over"


def test_a_cassino_game_between_rounds_offers_no_leave(page, api):
    """Between a Cassino game's rounds the page offered "Leave the table", which the API
    refuses (409 `hand_in_play`: the game is played to its end)."""
    from tests.pages.test_hand_page import play

    played = play(api, "cassino")
    table = api.get(f"/v1/hands/{played.hand}")["table_id"]
    assert api.get(f"/v1/tables/{table}")["status"] == "open"  # the game goes on
    signed_in(page, played.players[0].token)
    page.goto(f"/tables/{table}")
    expect(page.locator("#seat-offer")).to_contain_text("played to its end")
    expect(page.get_by_text("Between rounds: a seated player deals the next")).to_be_visible()
    expect(page.get_by_role("button", name="Leave the table")).to_have_count(0)


def test_a_seat_taken_on_the_page_records_the_age_and_seed_given(page, api):
    """The seat form sent only the buy-in: a player could not say his age (who is oldest picks
    Casino pirate's meneur and breaks Pirate pairs' ties) nor mix his own seed into the shuffle.
    Both are fields of the form now, sent when filled, with the API's limits."""
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table = api.post("/v1/tables", {"game": "pirate-pairs", "options": {}})["id"]
    signed_in(page, ada.token)
    page.goto(f"/tables/{table}")
    age = page.get_by_label("Age (0\N{EN DASH}150, optional)")
    expect(age).to_have_attribute("max", "150")
    age.fill("151")  # past the API's limit: the form says so, and sends nothing
    page.get_by_role("button", name="Sit down").click()
    assert not age.evaluate("(e) => e.validity.valid")
    assert api.get(f"/v1/tables/{table}")["seats"] == []
    age.fill("67")
    page.get_by_label("Seed (up to 200 characters, optional)").fill("Ada's luck 🎲")
    page.get_by_role("button", name="Sit down").click()
    expect(page.get_by_role("button", name="Leave the table")).to_be_visible()
    # Bob leaves both empty: none is sent, as before.
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, bob.token)
    page.goto(f"/tables/{table}")
    page.get_by_role("button", name="Sit down").click()
    expect(page.get_by_role("button", name="Leave the table")).to_be_visible()
    seated = [e["data"] for e in api.get(f"/v1/tables/{table}/events")["items"]
              if e["type"] == "PlayerSeated"]
    assert [(s["player_id"], s.get("age"), s.get("seed")) for s in seated] == [
        (ada.id, 67, "Ada's luck 🎲"), (bob.id, None, None)]
