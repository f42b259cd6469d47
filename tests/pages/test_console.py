"""/console: the operator's tables, players, jobs, checkpoints and ledger checks through the API;
auditors read it and change nothing."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect
from rq.job import Job

from tests.pages.conftest import signed_in
from workers.queues import connect, queue, webhook_lane


def _settled(job: Job, statuses: set[str]) -> str:
    deadline = time.monotonic() + 60
    while (status := job.get_status(refresh=True).value) not in statuses:
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    return status


def test_the_console_requeues_a_failed_job(page, api, served, tmp_path: Path):
    target = tmp_path / "absent"
    q = queue(connect(served.redis_url), served.queue)
    job = q.enqueue(os.remove, str(target))  # fails while the file is absent
    assert _settled(job, {"failed", "finished"}) == "failed"
    signed_in(page, served.operator_key)
    page.get_by_role("link", name="Console", exact=True).click()
    failed = page.locator("#failed-jobs tbody tr", has_text=job.id)
    expect(failed).to_contain_text("FileNotFoundError")
    target.write_text("")
    page.get_by_role("button", name=f"Requeue job {job.id}").click()
    expect(page.get_by_text(f"Job {job.id} is back on the queue")).to_be_visible()
    assert _settled(job, {"failed", "finished"}) == "finished"
    assert not target.exists()
    page.get_by_role("button", name="Refresh jobs").click()
    expect(failed).to_have_count(0)


def test_the_console_shows_every_queue_the_webhooks_lane_too(page, served):
    """Each queue's counts, as GET /metrics counts them, and the lane's failed jobs with their
    queue: the console showed the queue's own alone."""
    lane = queue(connect(served.redis_url), webhook_lane(served.queue))
    job = lane.enqueue("json.loads", "{not json")  # the worker's lane thread fails it
    assert _settled(job, {"failed", "finished"}) == "failed"
    try:
        signed_in(page, served.operator_key)
        page.goto("/console")
        names = page.locator("#job-queues tbody tr td:first-child")
        expect(names).to_have_text([served.queue, lane.name])
        row = page.locator("#job-queues tbody tr", has_text=lane.name)
        expect(row.locator("td").nth(4)).to_have_text("1")  # failed
        failed = page.locator("#failed-jobs tbody tr", has_text=job.id)
        expect(failed).to_contain_text(lane.name)
        expect(failed).to_contain_text("JSONDecodeError")
    finally:
        lane.failed_job_registry.remove(job, delete_job=True)


def test_the_console_lists_tables_by_game_and_status_and_players(page, api, served):
    cassino = api.post("/v1/tables", {"game": "cassino"})["id"]
    pairs = api.post("/v1/tables", {"game": "pirate-pairs"})["id"]
    ada = api.new_player("Console Ada", deposit=321)
    signed_in(page, served.operator_key)
    page.goto("/console")
    expect(page.locator("#tables").get_by_role("link", name=pairs)).to_be_visible()
    page.get_by_label("Game", exact=True).select_option("cassino")
    page.get_by_label("Status").select_option("open")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#tables").get_by_role("link", name=pairs)).to_have_count(0)
    expect(page.locator("#tables").get_by_role("link", name=cassino)).to_have_attribute(
        "href", f"/tables/{cassino}")
    row = page.locator("#players tbody tr", has_text=ada.id)
    expect(row).to_contain_text("Console Ada")
    expect(row).to_contain_text("321")


def test_the_tables_pages_keep_to_the_filters_last_shown(page, api, served):
    """A game picked but not shown went out with the next page's cursor: "Next page" of the
    Cassino tables listed Pirate pairs tables."""
    for _ in range(3):
        api.post("/v1/tables", {"game": "pirate-pairs"})
    for _ in range(11):
        api.post("/v1/tables", {"game": "cassino"})
    signed_in(page, served.operator_key)
    page.goto("/console")
    filters = page.get_by_role("form", name="Table filters")
    filters.get_by_label("Game", exact=True).select_option("cassino")
    filters.get_by_role("button", name="Show").click()
    games = page.locator("#tables tbody tr td:nth-child(2)")
    expect(games).to_have_count(10)
    expect(games).to_have_text(["Cassino"] * 10)
    filters.get_by_label("Game", exact=True).select_option("pirate-pairs")  # not shown
    section = page.locator("#tables").locator("xpath=ancestor::section[1]")
    section.get_by_role("button", name="Next page").click()
    expect(section.get_by_text("Page 2")).to_be_visible()
    expect(games.first).to_have_text("Cassino")
    assert set(games.all_inner_texts()) == {"Cassino"}


def test_a_list_shows_its_last_read_when_an_earlier_one_is_answered_after_it(page, api, served):
    """The tables read as the console opened, answered after Show's filtered read, replaced the
    Cassino tables with every game's, and its cursor went out with the Cassino filter: "Next
    page" was refused (422 invalid_cursor). Only the read asked for last is shown."""
    for _ in range(11):
        api.post("/v1/tables", {"game": "cassino"})
    for _ in range(3):
        api.post("/v1/tables", {"game": "pirate-pairs"})
    held: list = []

    def hold_the_unfiltered(route) -> None:
        if "game=" in route.request.url or not route.request.url.endswith("?limit=10"):
            route.continue_()  # Show's read, or another section's
        else:
            held.append((route, route.fetch()))  # answered now, delivered later

    page.route("**/v1/tables?*", hold_the_unfiltered)
    signed_in(page, served.operator_key)
    page.goto("/console")
    deadline = time.monotonic() + 30
    while not held:
        assert time.monotonic() < deadline, "the console read no table list"
        page.wait_for_timeout(50)
    filters = page.get_by_role("form", name="Table filters")
    filters.get_by_label("Game", exact=True).select_option("cassino")
    filters.get_by_role("button", name="Show").click()
    games = page.locator("#tables tbody tr td:nth-child(2)")
    expect(games).to_have_text(["Cassino"] * 10)
    route, late = held[0]
    assert "pirate-pairs" in {t["game"] for t in late.json()["items"]}  # other rows
    route.fulfill(response=late)
    page.evaluate("() => new Promise((done) => setTimeout(done, 500))")  # its handling ran
    expect(games).to_have_text(["Cassino"] * 10)
    section = page.locator("#tables").locator("xpath=ancestor::section[1]")
    section.get_by_role("button", name="Next page").click()
    expect(section.get_by_text("Page 2")).to_be_visible()
    expect(page.get_by_text("invalid_cursor")).to_have_count(0)
    expect(games.first).to_have_text("Cassino")
    assert set(games.all_inner_texts()) == {"Cassino"}


def test_checkpoints_and_ledger_checks_from_the_console(page, served, api, tmp_path: Path):
    signed_in(page, served.operator_key)
    page.goto("/console")
    page.get_by_role("button", name="Record a checkpoint").click()
    newest = api.get("/v1/audit/checkpoints")["items"][0]
    button = page.get_by_role("button", name=f"Download checkpoint {newest['id']}")
    with page.expect_download() as download:
        button.click()
    saved = tmp_path / "cp.json"
    download.value.save_as(saved)
    assert json.loads(saved.read_text()) == newest
    page.get_by_role("button", name="Check the ledger").click()
    expect(page.locator("#ledger-result")).to_contain_text("finished")
    expect(page.locator("#ledger-result")).to_contain_text("Accounts")


def test_a_ledger_check_names_the_treasure_left_at_an_ended_table(page, api, served, pages_database_url):
    """A check that failed only for a stranded account (treasure left in a table that is over)
    read "the ledger does not balance", with a total of 0 and no account below 0 or drifting:
    an imbalance nothing explained. The table's row is marked over by hand here, and put back."""
    import psycopg

    sid = api.new_player("Stranded Sid", deposit=30)
    table = api.post("/v1/tables", {"game": "sette-e-mezzo"})["id"]
    api.post(f"/v1/tables/{table}/seats", {"buy_in": 20}, token=sid.token)
    signed_in(page, served.operator_key)
    page.goto("/console")
    with psycopg.connect(pages_database_url, autocommit=True) as c:
        c.execute("UPDATE tables SET status = 'over' WHERE table_id = %s", (table,))
        try:
            page.get_by_role("button", name="Check the ledger").click()
            result = page.locator("#ledger-result")
            expect(result).to_contain_text("finished", timeout=60_000)
        finally:
            c.execute("UPDATE tables SET status = 'open' WHERE table_id = %s", (table,))
    expect(result).to_contain_text("the check failed: accounts of ended tables still holding treasure: ")
    expect(result).not_to_contain_text("does not balance")
    stranded = page.get_by_role("table", name=re.compile("^Treasure left in tables that are over"))
    expect(stranded.locator("tr", has_text=f"seat:{table}:{sid.id}")).to_contain_text("20")


def test_auditors_read_the_console_and_change_nothing(page, api):
    auditor = api.new_auditor()
    signed_in(page, auditor.token)
    page.goto("/console")
    expect(page.get_by_text("Read-only")).to_be_visible()
    expect(page.get_by_role("heading", name="Jobs")).to_be_visible()
    expect(page.locator("#job-counts")).to_contain_text("Failed")
    expect(page.get_by_role("button", name="Record a checkpoint")).to_have_count(0)
    expect(page.get_by_role("button", name="Requeue", exact=False)).to_have_count(0)
    # A ledger check is theirs to start, as in the API.
    page.get_by_role("button", name="Check the ledger").click()
    expect(page.locator("#ledger-result")).to_contain_text("finished")


def test_players_are_refused_the_console(page, api):
    ada = api.new_player("Ada")
    signed_in(page, ada.token)
    page.goto("/console")
    expect(page.get_by_role("alert")).to_contain_text("403")


def test_a_refused_form_says_what_the_api_said_of_each_field(page, served):
    """A table whose min bet passed its max showed only "422 invalid_options: the options do
    not fit this game": the API's word on the field, which the person needs, was left out."""
    signed_in(page, served.operator_key)
    page.goto("/console")
    page.get_by_label("Table game").select_option("sette-e-mezzo")
    page.locator("#opt-min_bet").fill("50")
    page.locator("#opt-max_bet").fill("10")
    page.get_by_role("button", name="Create the table").click()
    fields = page.locator("#h-new-table").locator("xpath=..").locator("ul.problem-fields")
    expect(fields).to_contain_text("options.min_bet: min_bet must not exceed max_bet")


def test_cassinos_variant_is_one_control_on_the_create_a_table_form(page, api, served):
    """Cassino's form had two selects labelled "Variant" and "variant", both offering classic,
    spades and draw: the table's variant and the game option it stands for, which a screen
    reader could not tell apart. The variants stand for that option one for one: the Variant
    select is now the only control, starting at the option's default, and the table plays the
    variant chosen there."""
    signed_in(page, served.operator_key)
    page.goto("/console")
    form = page.get_by_role("form", name="Create a table")
    form.get_by_label("Table game").select_option("cassino")
    chooser = form.get_by_label(re.compile("variant", re.IGNORECASE))
    expect(chooser).to_have_count(1)
    expect(chooser.locator("option")).to_have_text(["classic", "spades", "draw cassino (draw)"])
    expect(chooser).to_have_value("classic")
    chooser.select_option("spades")
    form.get_by_role("button", name="Create the table").click()
    made = page.locator("#table-created a")
    expect(made).to_be_visible()
    assert api.get(f"/v1/tables/{made.inner_text()}")["options"]["variant"] == "spades"
    # So with Sette e mezzo's `banker`, which its variants name one for one.
    form.get_by_label("Table game").select_option("sette-e-mezzo")
    expect(form.get_by_label("Variant", exact=True)).to_have_value("banker:seat0")
    expect(form.locator("#opt-banker")).to_have_count(0)
    # A variant that stands for only some of an option's values leaves the option its field,
    # and the variant may be none.
    form.get_by_label("Table game").select_option("siete-y-media")
    siete = form.get_by_label("Variant", exact=True)
    expect(siete.locator("option").first).to_have_text("(none: the options below)")
    expect(form.locator("#opt-seven_half_takes_bank")).to_have_count(1)


def test_a_new_submission_on_the_desk_clears_the_outcome_before_it(page, api, served):
    """A deposit's success note stayed beside a later withdrawal's problem, as if both held:
    each submission clears the outcome shown before it, so only the latest shows."""
    ada = api.new_player("Desk Ada", deposit=10)
    signed_in(page, served.operator_key)
    page.goto("/console")
    page.get_by_role("button", name=re.compile("^Manage Desk Ada ")).click()
    desk = page.locator("#desk")
    note, problem = desk.locator("#desk-note"), desk.get_by_role("alert")
    desk.get_by_label("Deposit amount").fill("5")
    desk.get_by_role("button", name="Deposit", exact=True).click()
    expect(note).to_be_visible()
    expect(note).to_contain_text("Deposited 5 to Desk Ada: balance now 15")
    # More than the wallet holds: refused, and the deposit's note is gone.
    desk.get_by_label("Withdraw amount").fill("1000")
    desk.get_by_role("button", name="Withdraw", exact=True).click()
    expect(problem).to_be_visible()
    expect(note).to_be_hidden()
    expect(desk).not_to_contain_text("Deposited")
    # And the other way: a success after the refusal shows alone.
    desk.get_by_label("Deposit amount").fill("2")
    desk.get_by_role("button", name="Deposit", exact=True).click()
    expect(note).to_contain_text("Deposited 2 to Desk Ada: balance now 17")
    expect(problem).to_have_count(0)
    assert api.get(f"/v1/players/{ada.id}/balance")["balance"] == 17


def test_an_auditor_id_or_a_key_left_wrong_is_said_so_in_the_forms_words(page, api, served):
    """An empty or mistyped auditor id went out as POST /v1/auditors//token and showed the web
    server's 404 text; a key with no scope ticked was told "scopes: Length must be between 1
    and 16." Both are said in the form's words, and nothing is sent."""
    signed_in(page, served.operator_key)
    page.goto("/console")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method != "GET" else None)
    auditors = page.locator("#h-auditors").locator("xpath=..")
    issue = auditors.get_by_role("button", name="Issue an auditor token")
    issue.click()
    expect(auditors.get_by_role("alert")).to_contain_text("Type the auditor's id first")
    expect(auditors.get_by_label("Auditor id")).to_be_focused()
    auditors.get_by_label("Auditor id").fill("au_12/../x")
    issue.click()
    expect(auditors.get_by_role("alert")).to_contain_text('"au_12/../x" is not an auditor id')
    expect(auditors.get_by_role("alert")).not_to_contain_text("404")
    keys = page.locator("#keys")
    keys.get_by_label("Key name").fill("No scope")
    keys.get_by_role("button", name="Create the key").click()
    expect(keys.get_by_role("alert")).to_contain_text("Tick at least one scope")
    expect(keys.get_by_role("alert")).not_to_contain_text("Length must be")
    assert sent == [], sent
    assert "No scope" not in [k["name"] for k in api.get("/v1/keys")["items"]]
    # A right id goes through.
    ann = api.new_auditor("Form Ann")
    auditors.get_by_label("Auditor id").fill(ann.id)
    issue.click()
    expect(page.locator("#auditor-note")).to_contain_text(f"A new token for auditor {ann.id}")


SECTIONS = ["Register a player", "Create a table", "Tables", "Players", "Player desk", "Auditors",
            "Jobs", "Ledger check", "Checkpoints", "Disputes", "Operator keys"]


@pytest.mark.parametrize(("scopes", "shown"), [
    (["players:read", "treasure:write"], ["Players", "Player desk"]),
    (["tables:read", "audit:read"], ["Tables", "Ledger check", "Checkpoints"]),
    (["audit:write"], ["Checkpoints"]),
], ids=["cashier", "table-auditing", "checkpoints-only"])
def test_a_scoped_key_sees_the_sections_its_scopes_open_and_no_refusal(page, api, scopes, shown):
    """A cashier's key (players:read, treasure:write) was shown Register a player, Create a
    table, Auditors, Jobs, Ledger check and Checkpoints, and three 403 missing_scope on load:
    the console went by the role alone."""
    ada = api.new_player("Scoped Ada", deposit=10)
    made = api.post("/v1/keys", {"name": "Scoped desk", "scopes": scopes})
    refused: list[str] = []
    page.on("response", lambda r: refused.append(r.url) if r.status == 403 else None)
    signed_in(page, made["secret"])
    page.goto("/console")
    headings = page.locator("#main h2")
    expect(headings).to_have_text([s for s in SECTIONS if s in shown])
    expect(page.get_by_text(f"This key holds {', '.join(scopes)}")).to_be_visible()
    if "Players" in shown:  # the cashier: deposits and withdrawals, no token nor erasure
        page.get_by_role("button", name=re.compile("^Manage Scoped Ada ")).click()
        desk = page.locator("#desk")
        expect(desk.get_by_role("button")).to_have_text(["Deposit", "Withdraw"])
        desk.get_by_label("Deposit amount").fill("5")
        desk.get_by_role("button", name="Deposit", exact=True).click()
        expect(desk.locator("#desk-note")).to_contain_text("balance now 15")
        assert api.get(f"/v1/players/{ada.id}/balance")["balance"] == 15
    if "Tables" in shown:  # read, not closed
        expect(page.locator("#tables tbody tr").first).to_be_visible()
        expect(page.get_by_role("button", name=re.compile("^Close table"))).to_have_count(0)
        expect(page.get_by_role("button", name="Record a checkpoint")).to_have_count(0)
        expect(page.locator("#checkpoints tbody tr").first).to_be_visible()
    if scopes == ["audit:write"]:  # recorded, not listed: the one recorded is shown
        page.get_by_role("button", name="Record a checkpoint").click()
        expect(page.locator("#checkpoints tbody tr")).to_have_count(1)
        expect(page.get_by_role("button", name=re.compile("^Download checkpoint "))).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)
    assert not refused, refused
