"""Disputes in the pages: a player opens one on his hand's page, attaches evidence and has the
hand re-adjudicated; once the operator resolves it, the page shows its corrective postings, and
the console lists it, linked to the hand. Both pages pass axe with the disputes shown."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import expect

from tests.pages.conftest import Api, signed_in
from tests.pages.test_console_retries import watch
from tests.pages.test_hand_page import play
from tests.pages.test_phone_and_axe import axe_source, serious, sideways


def at_a_settled_hand(page: Any, served: Any) -> tuple[Api, Any, Any]:
    """A hand of Sette e mezzo played and settled, its page open as its first player, who has
    opened no dispute yet: the API, the hand played, and the page's disputes section."""
    api = Api(served)
    played = play(api, "sette-e-mezzo")
    signed_in(page, played.players[0].token)
    page.goto(f"/hands/{played.hand}")
    section = page.locator("#disputes")
    expect(section.get_by_text("No dispute about this hand.")).to_be_visible()
    return api, played, section


def test_a_player_disputes_his_hand_and_sees_its_correction(page, served):
    api, played, section = at_a_settled_hand(page, served)
    me = played.players[0]
    # A word longer than the screen in it (a pasted id, say) made the page scroll sideways.
    long_word = "x" * 300
    section.get_by_label("Reason").fill(f"my second card was slow to come {long_word}")
    section.get_by_role("button", name="Open a dispute").click()
    dispute = section.locator("article.dispute")
    expect(dispute).to_contain_text("open")
    expect(dispute).to_contain_text("my second card was slow to come")
    assert sideways(page) == 0
    dispute_id = dispute.get_attribute("id")
    assert dispute_id and dispute_id.startswith("dp_")

    dispute.get_by_label("Evidence", exact=True).fill("the table's events at 21:04")
    dispute.get_by_role("button", name="Attach evidence").click()
    expect(dispute.get_by_role("list", name=f"Evidence of {dispute_id}")).to_contain_text(
        "the table's events at 21:04 (player")
    dispute.get_by_role("button", name="Re-adjudicate").click()
    expect(page.locator(f"#readjudication-{dispute_id}")).to_contain_text(
        "as recorded under rules version 1")
    # A version the game does not serve: the API's problem, shown, and nothing recorded.
    dispute = section.locator("article.dispute")
    dispute.get_by_label("Rules version").fill("9")
    dispute.get_by_role("button", name="Re-adjudicate").click()
    expect(section.locator(".problem-box")).to_contain_text("rules version 9 is not served")
    assert len(api.get(f"/v1/disputes/{dispute_id}")["readjudications"]) == 1
    assert serious(page, axe_source()) == []

    api.post(f"/v1/disputes/{dispute_id}/resolution", {
        "note": "a goodwill payment", "corrections": [{"from": "house", "to": me.id, "amount": 7}]})
    page.reload()
    dispute = page.locator("#disputes article.dispute")
    expect(dispute).to_contain_text("resolved: a goodwill payment")
    corrections = dispute.get_by_role("table", name=f"Corrective postings of {dispute_id}")
    expect(corrections).to_contain_text(f"wallet:{me.id}")
    expect(corrections).to_contain_text(f"dispute_correction:{dispute_id}")
    expect(dispute.get_by_role("button")).to_have_count(0)  # closed: nothing more to do
    assert serious(page, axe_source()) == []

    page.get_by_role("button", name="Sign out").click()
    signed_in(page, served.operator_key)
    page.goto("/console")
    listed = page.locator("#disputes-table")
    page.locator("#disputes").get_by_label("Disputes shown").select_option("resolved")
    row = listed.locator("tbody tr", has_text=dispute_id)
    expect(row).to_contain_text("resolved")
    expect(row).to_contain_text("7")
    assert sideways(page) == 0
    row.get_by_role("link", name=played.hand).click()
    expect(page).to_have_url(re.compile(re.escape(f"{served.url}/hands/{played.hand}#")))
    expect(page.locator(f"#{dispute_id}")).to_contain_text("resolved")


def test_a_dispute_or_its_evidence_sent_again_after_the_answer_was_lost_is_recorded_once(page, served):
    """Open a dispute and Attach evidence went without an Idempotency-Key: sent again after
    "Banco cannot be reached" (the first had been done), they opened a second dispute and
    attached the note twice."""
    api, played, section = at_a_settled_hand(page, served)
    sent = watch(page, "**/v1/disputes")
    section.get_by_label("Reason").fill("the deck was dealt twice")
    section.get_by_role("button", name="Open a dispute").click()
    expect(section.get_by_role("alert")).to_contain_text("unreachable")
    expect(section.get_by_role("alert")).to_contain_text("send it again as it is")
    section.get_by_role("button", name="Open a dispute").click()
    dispute = section.locator("article.dispute")
    expect(dispute).to_contain_text("the deck was dealt twice")
    disputes = api.get(f"/v1/disputes?hand_id={played.hand}")["items"]
    assert len(disputes) == 1, disputes
    assert len(sent) == 2 and sent[0].key and sent[1].key == sent[0].key and sent[1].replayed, sent

    dispute_id = disputes[0]["id"]
    noted = watch(page, f"**/v1/disputes/{dispute_id}/evidence")
    dispute.get_by_label("Evidence", exact=True).fill("the log at 21:04")
    dispute.get_by_role("button", name="Attach evidence").click()
    expect(section.get_by_role("alert")).to_contain_text("unreachable")
    dispute.get_by_role("button", name="Attach evidence").click()
    expect(dispute.get_by_role("list", name=f"Evidence of {dispute_id}")).to_contain_text("the log at 21:04")
    assert [e["note"] for e in api.get(f"/v1/disputes/{dispute_id}")["evidence"]] == ["the log at 21:04"]
    assert len(noted) == 2 and noted[1].key == noted[0].key and noted[1].replayed, noted


def test_the_operator_decides_disputes_on_the_hand_page(page, served):
    """Resolving a dispute (its corrective postings) or rejecting it needed the API or the CLI:
    no page could. The operator, with a key holding disputes:write, decides an open dispute on
    its hand's page: a correction that would overdraw a wallet is the API's problem, shown,
    and pays nothing; a resolution pays its corrections once; a rejection pays nothing. A key
    without the scope is offered no decision."""
    api = Api(served)
    played = play(api, "sette-e-mezzo")
    me = played.players[0]
    paid, refused = (api.post("/v1/disputes", {"hand_id": played.hand, "reason": why},
                              token=me.token)["id"] for why in ("pay me", "not fair"))
    reader = api.post("/v1/keys", {"name": "reads disputes",
                                   "scopes": ["disputes:read", "tables:read", "audit:read"]})["secret"]
    signed_in(page, reader)
    page.goto(f"/hands/{played.hand}")
    expect(page.locator(f"#{paid}")).to_contain_text("open")
    expect(page.get_by_role("form", name=f"Decide {paid}")).to_have_count(0)

    page.get_by_role("button", name="Sign out").click()
    signed_in(page, served.operator_key)
    page.goto(f"/hands/{played.hand}")
    before = api.get(f"/v1/players/{me.id}/balance")["balance"]
    decide = page.get_by_role("form", name=f"Decide {paid}")
    decide.get_by_label("Decision").fill("a goodwill payment")
    decide.get_by_label("From").select_option(me.id)
    decide.get_by_label("To").select_option("house")
    decide.get_by_label("Amount").fill(str(before + 1))  # more than his wallet holds
    decide.get_by_role("button", name="Resolve with these corrections").click()
    expect(page.locator("#disputes .problem-box")).to_contain_text("correction_overdraws")
    assert api.get(f"/v1/disputes/{paid}")["status"] == "open"
    decide = page.get_by_role("form", name=f"Decide {paid}")
    decide.get_by_label("From").select_option("house")
    decide.get_by_label("To").select_option(me.id)
    decide.get_by_label("Amount").fill("7")
    decide.get_by_role("button", name="Resolve with these corrections").click()
    dispute = page.locator(f"#{paid}")
    expect(dispute).to_contain_text("resolved: a goodwill payment")
    expect(dispute.get_by_role("table", name=f"Corrective postings of {paid}")).to_contain_text(
        f"wallet:{me.id}")
    assert api.get(f"/v1/players/{me.id}/balance")["balance"] == before + 7
    assert [c["amount"] for c in api.get(f"/v1/disputes/{paid}")["corrections"]] == [7]

    decide = page.get_by_role("form", name=f"Decide {refused}")
    decide.get_by_role("button", name="Reject: pay nothing").click()  # no note: nothing sent
    assert api.get(f"/v1/disputes/{refused}")["status"] == "open"
    decide.get_by_label("Decision").fill("the deal was fair")
    decide.get_by_label("Amount").fill("0")  # a correction's field a rejection ignores
    decide.get_by_role("button", name="Reject: pay nothing").click()
    expect(page.locator(f"#{refused}")).to_contain_text("rejected: the deal was fair")
    assert api.get(f"/v1/disputes/{refused}")["corrections"] == []
    assert api.get(f"/v1/players/{me.id}/balance")["balance"] == before + 7
    expect(page.get_by_role("form", name=re.compile("^Decide "))).to_have_count(0)
    assert serious(page, axe_source()) == []


def test_a_hand_page_whose_token_is_revoked_shows_nothing_more_and_offers_to_sign_in(page, served):
    """His token revoked while his hand's page was open: the dispute he then opens is refused with
    a 401, and the page signs out. The hand, its replay and its disputes go from the screen, and
    nothing is recorded; a new token signs him back in to the same hand."""
    api, played, section = at_a_settled_hand(page, served)
    me = played.players[0]
    api.call("DELETE", f"/v1/players/{me.id}/token")
    section.get_by_label("Reason").fill("sent after my token went")
    section.get_by_role("button", name="Open a dispute").click()
    expect(page.locator("#signed-out")).to_contain_text("you are signed out")
    expect(page.locator("#who-name")).to_have_text("Signed out: your token no longer works")
    expect(page.locator("#disputes")).to_have_count(0)
    expect(page.locator("#replay")).to_have_count(0)
    expect(page.get_by_role("button", name="Open a dispute")).to_have_count(0)
    assert api.get(f"/v1/disputes?hand_id={played.hand}")["items"] == []
    fresh = api.post(f"/v1/players/{me.id}/token")["token"]
    page.get_by_label("Token").fill(fresh)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#disputes").get_by_text("No dispute about this hand.")).to_be_visible()
    expect(page.locator("#signed-out")).to_have_count(0)
