"""Disputes on both units of work (tests/application/conftest.py), through the bus: opened on a
real hand, evidence attached, re-adjudicated under the hand's rules version and a newer one,
resolved with corrective postings (conserved, refused whole when a wallet cannot pay) or
rejected, each an event of the dispute's stream; and the refusals, which write nothing."""

from __future__ import annotations

from typing import Any

import pytest

from events import ledger
from games import registry
from service.application import disputes, handlers, settling
from service.application.bus import handle
from service.application.disputes import (
    AttachEvidence,
    Correction,
    OpenDispute,
    Readjudicate,
    RejectDispute,
    ResolveDispute,
)
from service.application.errors import Conflict, Forbidden, Invalid, NotFound
from service.application.principal import OPERATOR, Principal
from tests.application.conftest import Work
from tests.application.test_table_commands import load, open_table, player
from tests.service.test_rules_versions import CoveredSette

META = {"actor": "operator:operator"}
AUDITOR = Principal("auditor", "au_1")


def serve_version_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "REGISTRY",
                        registry.Registry([*registry.served(), CoveredSette()]))


def played_hand(work: Work, bet: int = 10) -> tuple[str, str, str, str]:
    """A settled Sette e mezzo hand: the banker's seat holds 5, the bettor bets `bet` (over what
    the banker holds, which version 1 allows and version 2 refuses), both stand."""
    banker, bettor = player(work, 100), player(work, 100)
    table_id = open_table(work, [(banker, 5), (bettor, 50)])
    with work() as uow:
        dealt = handlers.open_hand(uow, handlers.load(uow, table_id, balances=True), META)
    hand_id = str(dealt.hand_id)
    first = True
    for _ in range(20):
        table = load(work, table_id)
        if table.status != "playing":
            break
        engine = handlers.engine_of(table)
        seat = next(s["seat"] for s in table.seats if engine.legal_actions(table.state, s["seat"]))
        action = {"type": "bet", "amount": bet} if first else {"type": "stand"}
        first = False
        with work() as uow:
            handlers.act(uow, table, seat, action, {**META, "request_id": f"r{_}"})
    with work() as uow:
        assert settling.settle(uow, table_id, hand_id, {**META, "command": "SettleHand"})
    return table_id, hand_id, banker, bettor


def run(work: Work, command: Any, actor: str = "operator:operator") -> Any:
    with work() as uow:
        return handle(command, uow, {"actor": actor})


def logged(work: Work, dispute_id: str) -> list[str]:
    with work() as uow:
        return [e.type for e in uow.read_stream(disputes.stream(dispute_id), 0, 100)]


def wallets(work: Work, *players: str) -> dict[str, int]:
    with work() as uow:
        return {p: uow.balance(ledger.wallet(p)) for p in players} | {
            "house": uow.balance(ledger.HOUSE)}


def test_a_dispute_is_opened_readjudicated_under_two_versions_and_resolved_with_postings(
        work: Work, monkeypatch: pytest.MonkeyPatch):
    table_id, hand_id, banker, bettor = played_hand(work)
    me = Principal("player", bettor)
    opened = run(work, OpenDispute(hand_id, " the banker could not cover my bet ", me),
                 f"player:{bettor}")
    assert (opened["status"], opened["hand_id"], opened["table_id"], opened["reason"]) == (
        "open", hand_id, table_id, "the banker could not cover my bet")
    assert opened["opened_by"] == "player" and set(opened["players"]) == {banker, bettor}
    dispute_id = opened["id"]
    run(work, AttachEvidence(dispute_id, "the banker's seat held 5", AUDITOR), "auditor:au_1")

    # Under its own version the hand is what was recorded.
    same = run(work, Readjudicate(dispute_id, AUDITOR))
    assert same["matches"] and same["rules_version"] == same["hand_rules_version"] == 1
    assert same["events"] == [] and same["postings"] == [] and same["net"] == []
    assert same["events_compared"] > 3

    # Under version 2 the bet is refused: every event from it on, and its postings, differ.
    serve_version_2(monkeypatch)
    newer = run(work, Readjudicate(dispute_id, AUDITOR, rules_version=2))
    assert not newer["matches"] and newer["rules_version"] == 2
    assert newer["refused"] == "bet_out_of_range"
    assert newer["refused_command"]["code"] == "bet_out_of_range"
    assert newer["events"] and all(d["replayed"] is None for d in newer["events"])
    assert newer["events_differing"] == len(newer["events"])
    bet = next(p for p in newer["postings"] if p["recorded"]["amount"] == 10)
    assert bet["replayed"] is None
    assert bet["recorded"]["from"] == ledger.seat(table_id, bettor)

    before = wallets(work, banker, bettor)
    resolved = run(work, ResolveDispute(dispute_id, "the bet is returned from the banker's"
                                        " winnings, and 1 from the house",
                                        (Correction(banker, bettor, 3),
                                         Correction("house", bettor, 1))))
    assert resolved["status"] == "resolved" and resolved["closed_at"] is not None
    reason = disputes.reason_of(dispute_id)
    assert [(c["from"], c["to"], c["amount"], c["reason"]) for c in resolved["corrections"]] == [
        (ledger.wallet(banker), ledger.wallet(bettor), 3, reason),
        (ledger.HOUSE, ledger.wallet(bettor), 1, reason)]
    after = wallets(work, banker, bettor)
    assert after[bettor] == before[bettor] + 4 and after[banker] == before[banker] - 3
    assert after["house"] == before["house"] - 1
    assert sum(after.values()) == sum(before.values())  # conserved: one debit, one credit each
    assert logged(work, dispute_id) == [
        "DisputeOpened", "DisputeEvidenceAttached", "DisputeReadjudicated",
        "DisputeReadjudicated", "DisputeResolved", "TreasurePosted", "TreasurePosted"]
    with work() as uow:
        posted = [e.data for e in uow.read_stream(disputes.stream(dispute_id), 0, 100)
                  if e.type == "TreasurePosted"]
    assert all(p["hand"] == hand_id and p["table"] == table_id for p in posted)

    # Closed: nothing more is added, paid or re-adjudicated.
    for closed in (ResolveDispute(dispute_id, "again", (Correction("house", bettor, 1),)),
                   RejectDispute(dispute_id, "no"), AttachEvidence(dispute_id, "more", AUDITOR),
                   Readjudicate(dispute_id, AUDITOR)):
        with pytest.raises(Conflict) as refused:
            run(work, closed)
        assert refused.value.code == "dispute_closed"
    assert len(logged(work, dispute_id)) == 7 and wallets(work, banker, bettor) == after


def test_a_player_sees_the_differences_as_his_seat_does(work: Work,
                                                        monkeypatch: pytest.MonkeyPatch):
    _, hand_id, _, bettor = played_hand(work)
    dispute_id = run(work, OpenDispute(hand_id, "check it", OPERATOR))["id"]
    serve_version_2(monkeypatch)
    seen = {who.role: run(work, Readjudicate(dispute_id, who, rules_version=2))
            for who in (AUDITOR, Principal("player", bettor))}
    # The auditor sees every card; the bettor the banker's hidden ones as their public part.
    hidden = [d for d in seen["auditor"]["events"]
              if d["recorded"] != next(x for x in seen["player"]["events"]
                                       if x["index"] == d["index"])["recorded"]]
    everyone = [d["index"] for d in seen["auditor"]["events"]]
    assert [d["index"] for d in seen["player"]["events"]] == everyone
    assert hidden, "some event of the banker's is hidden from the bettor"
    with pytest.raises(Forbidden) as stranger:
        run(work, Readjudicate(dispute_id, Principal("player", "pl_stranger")))
    assert stranger.value.code == "not_your_dispute"


def test_refusals_write_nothing(work: Work):
    _, hand_id, banker, bettor = played_hand(work)
    with pytest.raises(NotFound):
        run(work, OpenDispute("hd_none", "why", OPERATOR))
    with pytest.raises(Forbidden) as stranger:
        run(work, OpenDispute(hand_id, "why", Principal("player", "pl_stranger")))
    assert stranger.value.code == "not_your_hand"
    with pytest.raises(Invalid) as blank:
        run(work, OpenDispute(hand_id, "   ", OPERATOR))
    assert blank.value.code == "invalid_note"
    dispute_id = run(work, OpenDispute(hand_id, "why", OPERATOR))["id"]
    for version, code in ((9, "rules_version_not_served"), (0, "rules_version_older")):
        with pytest.raises(Invalid) as wrong:
            run(work, Readjudicate(dispute_id, AUDITOR, rules_version=version))
        assert wrong.value.code == code
    before = wallets(work, banker, bettor)
    for corrections, code in (
            ((), "invalid_correction"),
            ((Correction(banker, banker, 1),), "invalid_correction"),
            ((Correction("house", bettor, 0),), "invalid_correction"),
            ((Correction("house", "pl_stranger", 1),), "not_of_the_hand"),
            # More than the banker's wallet holds: refused whole, the house's leg too.
            ((Correction("house", bettor, 1), Correction(banker, bettor, 10_000)),
             "correction_overdraws")):
        with pytest.raises(Invalid) as refused:
            run(work, ResolveDispute(dispute_id, "pay", corrections))
        assert refused.value.code == code, corrections
    assert refused.value.extra["account"] == ledger.wallet(banker)
    assert wallets(work, banker, bettor) == before
    assert logged(work, dispute_id) == ["DisputeOpened"]
    with pytest.raises(NotFound):
        run(work, AttachEvidence("dp_none", "x", OPERATOR))
    rejected = run(work, RejectDispute(dispute_id, "the rules were applied as written"))
    assert rejected["status"] == "rejected" and rejected["corrections"] == []
    assert rejected["resolution"]["note"] == "the rules were applied as written"
    assert wallets(work, banker, bettor) == before
