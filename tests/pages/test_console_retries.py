"""/console's writes sent again after their answer was lost: each form sends a request again, as it
was, with the Idempotency-Key it went with, so that Banco does it once and answers what it
answered the first time. A form made a new key for every submission: pressing Deposit again
after "Banco cannot be reached" deposited twice, and Register the player made two players."""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import signed_in


@dataclass
class Sent:
    key: str | None
    replayed: bool


def watch(page: Any, url: str, *, lose_first: bool = True) -> list[Sent]:
    """Let every POST to `url` reach Banco and, with `lose_first`, lose the first one's answer
    (the page gets a network error, as when the connection drops after the request went): the
    list of the key each carried and whether its answer was a replay."""
    sent: list[Sent] = []

    def handle(route: Any) -> None:
        if route.request.method != "POST":
            route.fallback()
            return
        response = route.fetch()
        sent.append(Sent(route.request.headers.get("idempotency-key"),
                         response.headers.get("idempotent-replayed") == "true"))
        if lose_first and len(sent) == 1:
            route.abort("connectionreset")
        else:
            route.fulfill(response=response)

    page.route(url, handle)
    return sent


def named(api: Any, name: str) -> list[dict[str, Any]]:
    """The players named `name`, every page of the list read."""
    found, cursor = [], None
    while True:
        got = api.get("/v1/players?limit=200" + (f"&cursor={cursor}" if cursor else ""))
        found += [item for item in got["items"] if item.get("name") == name]
        if not (cursor := got.get("next_cursor")):
            return found


def manage(page: Any, name: str) -> Any:
    page.get_by_role("button", name=re.compile(f"^Manage {name} ")).click()
    return page.locator("#desk")


def works(api: Any, token: str) -> bool:
    return bool(api.get("/v1/me", token=token))


# Each form that writes: set up, fill it in, and give (the URL its write goes to, its button,
# what must hold once the write is done, once).
Form = Callable[[Any, Any], tuple[str, Any, Callable[[], None]]]


def deposit(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    dora = api.new_player("Retry Dora")
    page.reload()
    desk = manage(page, "Retry Dora")
    desk.get_by_label("Deposit amount").fill("25")

    def once() -> None:
        # Sent again, the answer is the first one's: its balance is said as of that write.
        expect(desk.locator("#desk-note")).to_contain_text(
            "Deposited 25 to Retry Dora (done when first sent; Banco answered as it did then):"
            " balance 25 as of that write")
        assert api.get(f"/v1/players/{dora.id}/balance")["balance"] == 25

    return "**/deposits", desk.get_by_role("button", name="Deposit", exact=True), once


def withdrawal(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    wes = api.new_player("Retry Wes", deposit=100)
    page.reload()
    desk = manage(page, "Retry Wes")
    desk.get_by_label("Withdraw amount").fill("30")

    def once() -> None:
        expect(desk.locator("#desk-note")).to_contain_text(
            "Withdrew 30 from Retry Wes (done when first sent; Banco answered as it did then):"
            " balance 70 as of that write")
        assert api.get(f"/v1/players/{wes.id}/balance")["balance"] == 70

    return "**/withdrawals", desk.get_by_role("button", name="Withdraw", exact=True), once


def registration(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    name = f"Retry Rita {secrets.token_hex(3)}"
    form = page.get_by_role("form", name="Register a player")
    form.get_by_label("Name").fill(name)

    def once() -> None:
        expect(page.locator("#registered")).to_contain_text(f"Registered {name}")
        found = named(api, name)
        assert len(found) == 1, found  # one player, not one a submission
        # The token shown is the one that works (a replay issues it in place of the lost one's).
        assert works(api, page.locator("#registered code").inner_text())
        assert found[0]["id"] in page.locator("#registered").inner_text()

    return "**/v1/players", form.get_by_role("button", name="Register the player"), once


def player_token(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    api.new_player("Retry Tom")
    page.reload()
    desk = manage(page, "Retry Tom")

    def once() -> None:
        expect(desk.locator("#desk-note")).to_contain_text("A new token for Retry Tom")
        assert works(api, desk.locator("#desk-note code").inner_text())

    return "**/token", desk.get_by_role("button", name="Issue a new token"), once


def auditor(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    section = page.locator("#h-auditors").locator("xpath=..")
    section.get_by_label("Auditor's name").fill("Retry Ann")

    def once() -> None:
        expect(page.locator("#auditor-note")).to_contain_text("Registered auditor Retry Ann")
        assert works(api, page.locator("#auditor-note code").inner_text())

    return "**/v1/auditors", section.get_by_role("button", name="Register the auditor"), once


def auditor_token(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    ann = api.new_auditor("Retry Ann")
    section = page.locator("#h-auditors").locator("xpath=..")
    section.get_by_label("Auditor id").fill(ann.id)

    def once() -> None:
        expect(page.locator("#auditor-note")).to_contain_text(f"A new token for auditor {ann.id}")
        assert works(api, page.locator("#auditor-note code").inner_text())

    return "**/token", section.get_by_role("button", name="Issue an auditor token"), once


def key(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    name = f"Retry desk {secrets.token_hex(3)}"
    keys = page.locator("#keys")
    keys.get_by_label("Key name").fill(name)
    keys.get_by_label("metrics:read").check()

    def once() -> None:
        expect(page.locator("#key-note")).to_contain_text("Created key ok_")
        assert [k["name"] for k in api.get("/v1/keys")["items"]].count(name) == 1
        assert works(api, page.locator("#key-secret").inner_text())

    return "**/v1/keys", keys.get_by_role("button", name="Create the key"), once


def rotation(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    made = api.post("/v1/keys", {"name": "Retry rotated", "scopes": ["metrics:read"]})
    page.reload()
    button = page.get_by_role("button", name=f"Rotate key {made['key']['id']}")

    def once() -> None:
        expect(page.locator("#key-note")).to_contain_text("has a new secret")
        assert works(api, page.locator("#key-secret").inner_text())

    return "**/rotation", button, once


def table(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    form = page.get_by_role("form", name="Create a table")
    form.get_by_label("Table game").select_option("cassino")

    def once() -> None:
        expect(page.locator("#table-created")).to_contain_text("Created table tb_")

    return "**/v1/tables", form.get_by_role("button", name="Create the table"), once


def close(page: Any, api: Any) -> tuple[str, Any, Callable[[], None]]:
    made = api.post("/v1/tables", {"game": "sette-e-mezzo", "options": {}})["id"]
    page.reload()
    filters = page.get_by_role("form", name="Table filters")
    filters.get_by_label("Status").select_option("open")  # newest first: it is on the first page
    filters.get_by_role("button", name="Show").click()
    button = page.get_by_role("button", name=f"Close table {made}")

    def once() -> None:
        expect(page.get_by_role("button", name=f"Close table {made}")).to_have_count(0)
        assert api.get(f"/v1/tables/{made}")["status"] == "over"

    return "**/close", button, once


FORMS: list[Form] = [deposit, withdrawal, registration, player_token, auditor, auditor_token,
                     key, rotation, table, close]


@pytest.mark.parametrize("form", FORMS, ids=[f.__name__ for f in FORMS])
def test_a_write_sent_again_after_its_answer_was_lost_is_done_once(page, api, served, form: Form):
    signed_in(page, served.operator_key)
    page.goto("/console")
    url, button, once = form(page, api)
    sent = watch(page, url)
    button.click()
    problem = page.get_by_role("alert")
    expect(problem).to_contain_text("unreachable")
    told = problem.inner_text()
    button.click()
    once()
    assert len(sent) == 2, sent
    assert sent[0].key and sent[1].key == sent[0].key, sent
    assert sent[1].replayed, sent
    # And the person was told it was safe to.
    assert "send it again as it is, and Banco does it only once" in told, told


def test_a_changed_form_or_one_answered_takes_a_new_key(page, api, served):
    """A key goes with one request until it is answered: sent changed, it is another request
    (Banco would refuse the key with 422 idempotency_key_reused); sent after a success or a
    refusal, it is another deposit, or another try."""
    eve = api.new_player("Retry Eve")
    signed_in(page, served.operator_key)
    page.goto("/console")
    desk = manage(page, "Retry Eve")
    sent = watch(page, "**/deposits")
    amount = desk.get_by_label("Deposit amount")
    deposit = desk.get_by_role("button", name="Deposit", exact=True)
    note = desk.locator("#desk-note")
    amount.fill("25")
    deposit.click()
    expect(desk.get_by_role("alert")).to_contain_text("unreachable")
    # Changed after the answer was lost: a new deposit of 30, beside the 25 that went through.
    amount.fill("30")
    deposit.click()
    expect(note).to_contain_text("Deposited 30 to Retry Eve: balance now 55")
    # The same again after its success: another deposit.
    amount.fill("30")
    deposit.click()
    expect(note).to_contain_text("balance now 85")
    keys = [s.key for s in sent]
    assert len(set(keys)) == 3 and not any(s.replayed for s in sent), sent

    # Refused (more than the wallet holds), then sent again as it was once it fits: done.
    refused = watch(page, "**/withdrawals", lose_first=False)
    withdraw = desk.get_by_role("button", name="Withdraw", exact=True)
    desk.get_by_label("Withdraw amount").fill("100")
    withdraw.click()
    expect(desk.get_by_role("alert")).to_contain_text("insufficient_treasure")
    api.post(f"/v1/players/{eve.id}/deposits", {"amount": 15, "reason": "desk"})
    withdraw.click()
    expect(note).to_contain_text("Withdrew 100 from Retry Eve: balance now 0")
    assert len(refused) == 2 and refused[0].key != refused[1].key and not refused[1].replayed, refused


def test_a_replayed_deposit_does_not_call_its_balance_the_balance_now(page, api, served):
    """Sent again after its answer was lost, a deposit is answered with the first answer, whose
    balance is the one just after it: the note said "balance now 25" when the wallet held 65."""
    ida = api.new_player("Retry Ida")
    signed_in(page, served.operator_key)
    page.goto("/console")
    desk = manage(page, "Retry Ida")
    sent = watch(page, "**/deposits")
    desk.get_by_label("Deposit amount").fill("25")
    deposit = desk.get_by_role("button", name="Deposit", exact=True)
    deposit.click()
    expect(desk.get_by_role("alert")).to_contain_text("unreachable")
    api.post(f"/v1/players/{ida.id}/deposits", {"amount": 40, "reason": "desk"})  # elsewhere, meanwhile
    deposit.click()
    note = desk.locator("#desk-note")
    expect(note).to_contain_text("balance 25 as of that write, which may have moved since")
    expect(note).not_to_contain_text("balance now")
    assert sent[1].replayed and api.get(f"/v1/players/{ida.id}/balance")["balance"] == 65
