"""The table page's writes sent again after their answer was lost: Sit down, Leave the table,
Deal and the moves went without an Idempotency-Key, so a second press after "Banco cannot be reached" was
another request (a second deal, a sit-down refused for a seat already taken, a leave refused
for a seat already left, its cash-out never said). Sent again as they were, they go with the
key they went with, are done once, and the page says what the first one did."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.pages.conftest import signed_in
from tests.pages.test_console_retries import Sent
from tests.pages.test_table_page import seated


class Lost(list[Sent]):
    """The writes `lose_first` saw, how many had left the page (answered or not), and how many of
    the page's reads it refused after the first's answer was lost."""

    started = 0
    refused_reads = 0


def lose_first(pg: Any, table: str, method: str, path: str) -> Lost:
    """Let every `method` to `path` reach Banco and lose the first one's answer; keep the page
    from hearing of the table's change otherwise (its stream refused, its reads refused until
    the write is sent again), as when the connection is down: the page still offers the write.
    The key each carried and whether its answer was a replay."""
    sent = Lost()
    base = f"/v1/tables/{table}"

    def handle(route: Any) -> None:
        request = route.request
        at = urlsplit(request.url).path
        if at == f"{base}/stream":
            route.abort("connectionrefused")
        elif at == base and request.method == "GET" and sent.started < 2:
            # Every read until the write is sent again: one let through while the first was out
            # could be answered after it was done, and tell of it.
            sent.refused_reads += len(sent) == 1  # the page looking again after the lost answer
            route.abort("connectionrefused")
        elif at == path and request.method == method:
            sent.started += 1
            response = route.fetch()
            sent.append(Sent(request.headers.get("idempotency-key"),
                             response.headers.get("idempotent-replayed") == "true"))
            if len(sent) == 1:
                route.abort("connectionreset")
            else:
                route.fulfill(response=response)
        else:
            route.fallback()

    pg.route(f"**{base}**", handle)
    return sent


def at(open_page: Any, player: Any, table: str) -> Any:
    pg = signed_in(open_page(), player.token)
    pg.goto(f"/tables/{table}")
    expect(pg.locator("#table-version")).not_to_be_empty()
    return pg


def sent_again(pg: Any, button: Any, sent: list[Sent]) -> None:
    button.click()
    hint = pg.get_by_role("alert").filter(has_text="send it again as it is, and Banco does it only once")
    expect(hint).to_contain_text("unreachable")
    button.click()
    expect(hint).to_have_count(0)


def once(sent: list[Sent]) -> None:
    assert len(sent) == 2, sent
    assert sent[0].key and sent[1].key == sent[0].key and sent[1].replayed, sent


def test_a_sit_down_sent_again_takes_one_seat(api, open_page):
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table, _ = seated(api, "sette-e-mezzo", [ada])
    pg = at(open_page, bob, table)
    sent = lose_first(pg, table, "POST", f"/v1/tables/{table}/seats")
    pg.get_by_label("Buy-in").fill("30")
    sent_again(pg, pg.get_by_role("button", name="Sit down"), sent)
    expect(pg.get_by_role("status").filter(has_text="You sat down")).to_have_text(
        "You sat down in seat 2: 30 went from your wallet to your seat.")
    once(sent)
    seats = api.get(f"/v1/tables/{table}")["seats"]
    assert [s["player_id"] for s in seats] == [ada.id, bob.id]
    assert api.get(f"/v1/players/{bob.id}/balance")["balance"] == 70


def test_a_leave_sent_again_says_what_the_seat_cashed_out(api, open_page):
    ada, bob = api.new_player("Ada", deposit=100), api.new_player("Bob", deposit=100)
    table, _ = seated(api, "sette-e-mezzo", [ada, bob])
    pg = at(open_page, bob, table)
    sent = lose_first(pg, table, "DELETE", f"/v1/tables/{table}/seats/{bob.id}")
    sent_again(pg, pg.get_by_role("button", name="Leave the table"), sent)
    # The replayed answer tells of the cash-out the lost one made.
    expect(pg.get_by_role("status").filter(has_text="You left the table")).to_have_text(
        "You left the table: 20 went back to your wallet.")
    once(sent)
    assert api.get(f"/v1/players/{bob.id}/balance")["balance"] == 100


def test_a_deal_sent_again_deals_one_hand(api, open_page):
    table, (ada, _) = seated(api, "sette-e-mezzo")
    pg = at(open_page, ada, table)
    sent = lose_first(pg, table, "POST", f"/v1/tables/{table}/hands")
    deal = pg.get_by_role("button", name="Deal the first hand")
    deal.click()
    hint = pg.get_by_role("alert").filter(has_text="send it again as it is, and Banco does it only once")
    expect(hint).to_contain_text("unreachable")
    # The page looks for Banco again every few seconds; a look that fails as the write did keeps
    # saying the write may be sent again (the hint was dropped at the first look).
    for _ in range(200):
        if sent.refused_reads:
            break
        pg.wait_for_timeout(100)
    assert sent.refused_reads, "the page never looked for Banco again"
    expect(hint).to_contain_text("unreachable")
    deal.click()
    expect(hint).to_have_count(0)
    expect(pg.locator(".table-facts")).to_contain_text("Hand #1")
    once(sent)
    assert api.get(f"/v1/tables/{table}")["hand"]["number"] == 1


def _bobs_turn_to_play(api: Any, open_page: Any) -> tuple[str, Any, Any]:
    """A Sette e mezzo hand where Bob has bet and is to hit or stand: the table, Bob, and his
    page open at it."""
    table, (_, bob) = seated(api, "sette-e-mezzo", max_bet=5)
    api.post(f"/v1/tables/{table}/hands")
    offer = api.get(f"/v1/tables/{table}", token=bob.token)
    api.post(f"/v1/tables/{table}/actions", {"type": "bet", "amount": 3}, token=bob.token,
             headers={"If-Match": f'"{offer["version"]}"'})
    pg = at(open_page, bob, table)
    expect(pg.get_by_role("button", name="Stand")).to_be_enabled()
    return table, bob, pg


def test_a_move_sent_again_is_played_once_and_said_to_have_been(api, open_page):
    """A Stand whose answer was lost, pressed again: it went with If-Match alone, so the second was
    refused as stale and the page said that nothing was played, although the first had been. Sent
    again with the key it went with, it is answered as the first was, and the page says so."""
    table, _, pg = _bobs_turn_to_play(api, open_page)
    before = api.get(f"/v1/tables/{table}")["version"]
    sent = lose_first(pg, table, "POST", f"/v1/tables/{table}/actions")
    sent_again(pg, pg.get_by_role("button", name="Stand"), sent)
    said = pg.get_by_role("status").filter(has_text="Played once:")
    expect(said).to_contain_text("was played then, not again")
    expect(pg.get_by_text("nothing was played")).to_have_count(0)
    once(sent)
    played = [e["type"] for e in api.get(f"/v1/tables/{table}/events?after={before}")["items"]]
    assert played.count("Stood") == 1, played  # one stand, and nothing else of Bob's
    assert "CardDealt" not in played, played


def test_another_move_after_a_lost_one_does_not_say_nothing_of_his_was_played(api, open_page):
    """A Stand whose answer was lost, then a Hit from the same table: the Hit is refused as
    stale, and the page says that this move was not played but the lost one may have been, not
    that nothing was played. (A Stand ends his turn, so the stream sends his page no table.)"""
    table, _, pg = _bobs_turn_to_play(api, open_page)
    before = api.get(f"/v1/tables/{table}")["version"]
    sent = lose_first(pg, table, "POST", f"/v1/tables/{table}/actions")
    pg.get_by_role("button", name="Stand").click()
    expect(pg.get_by_role("alert").filter(has_text="send it again as it is")).to_contain_text("unreachable")
    pg.get_by_role("button", name="Hit (draw a card)").click()
    race = pg.get_by_role("alert").filter(has_text="Too late:")
    expect(race).to_contain_text("this move was not played; your move before it, whose answer was lost,"
                                 " may have been")
    expect(race).not_to_contain_text("so nothing was played")
    assert len(sent) == 2 and sent[1].key != sent[0].key  # another move, another key
    played = [e["type"] for e in api.get(f"/v1/tables/{table}/events?after={before}")["items"]]
    assert played.count("Stood") == 1 and "CardDealt" not in played, played  # the stand alone
