"""Re-adjudication: a hand's recorded commands decided again by the engine of a rules version
(the hand's own, or a newer one), and each engine event and posting that would differ.

The rules check (`rules_check`) stops at the first difference, for a hand that must have none;
a dispute asks what another version would have given, so here the replay goes on from the
replayed state (not the recorded one) and every difference is listed, index by index. A
command the version refuses ends the replay: what was recorded after it has no counterpart.
The deal is `start` again with the same seeds, line-up and seat balances, and with the state
the table's previous hand ended in as recorded. A settled hand's settlement is `settle` of the
replayed state, compared with the recorded settlement's postings.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from games.contract import IllegalMove
from service.verification.hand_log import HandLog, is_game
from service.verification.rules_check import UNREADABLE, as_recorded, batches, decided, postings

LEGS = ("from", "to", "amount", "reason")


@dataclass
class Readjudication:
    """What the replay under `rules_version` gives beside what was recorded."""

    hand_id: str
    rules_version: int
    hand_rules_version: int
    # Engine event records (`{"type", "data"}` as stored, hidden parts included) by index.
    events: list[dict[str, Any]] = field(default_factory=list)
    postings: list[dict[str, Any]] = field(default_factory=list)
    events_compared: int = 0
    refused: dict[str, Any] | None = None

    @property
    def matches(self) -> bool:
        return not self.events and not self.postings and self.refused is None

    def summary(self) -> dict[str, Any]:
        """What a dispute's stream records of it: no event's data (hidden cards stay out of the
        log's feed), only counts, the refusal's code and the postings that differ."""
        return {"hand_id": self.hand_id, "rules_version": self.rules_version,
                "hand_rules_version": self.hand_rules_version, "matches": self.matches,
                "events_differing": len(self.events), "postings_differing": len(self.postings),
                "refused": None if self.refused is None else self.refused["code"],
                "postings": self.postings}


def _pairs(recorded: list[Any], replayed: list[Any]) -> list[dict[str, Any]]:
    """Each index where the two lists differ: what was recorded, and what the replay gives
    (None where one list is shorter)."""
    out = []
    for i in range(max(len(recorded), len(replayed))):
        have = recorded[i] if i < len(recorded) else None
        want = replayed[i] if i < len(replayed) else None
        if have != want:
            out.append({"index": i, "recorded": have, "replayed": want})
    return out


def net(moves: list[dict[str, Any]]) -> dict[str, int]:
    """Each account's net change over `moves` (postings)."""
    flows: dict[str, int] = defaultdict(int)
    for p in moves:
        flows[p["from"]] -= int(p["amount"])
        flows[p["to"]] += int(p["amount"])
    return dict(flows)


def readjudicate(hand: HandLog, version: int) -> Readjudication:
    """Replay `hand` under rules `version` (`registry.RulesNotServed` when it is not served)."""
    again = replace(hand, rules_version=version)
    engine = again.engine
    state = engine.initial_state(hand.options)
    recorded: list[dict[str, Any]] = []
    replayed: list[dict[str, Any]] = []
    paid: list[dict[str, Any]] = []
    paid_again: list[dict[str, Any]] = []
    refused: dict[str, Any] | None = None
    settled = hand.find("HandSettled")
    settlement = [] if settled is None else hand.events[hand.events.index(settled):]
    for batch in batches(hand.events):
        if batch[0] in settlement:
            break
        command = batch[0].metadata.get("command")
        recorded += [{"type": e.type, "data": e.data} for e in batch if is_game(e)]
        paid += [{k: e.data[k] for k in LEGS} for e in batch if e.type == "TreasurePosted"]
        if refused is not None or not isinstance(command, dict):
            continue
        try:
            events = decided(again, state, command)
            for e in events:
                state = engine.evolve(state, e)
        except IllegalMove as e:
            refused = {"index": len(replayed), "command": command, "code": e.code,
                       "detail": e.message}
            continue
        except UNREADABLE as e:
            refused = {"index": len(replayed), "command": command, "code": "unreadable",
                       "detail": f"the command cannot be read ({type(e).__name__})"}
            continue
        replayed += [as_recorded(again, e) for e in events]
        paid_again += [{k: p[k] for k in LEGS}
                       for p in postings(again, [p for e in events for p in e.postings])]
    if settled is not None:
        paid += [{k: e.data[k] for k in LEGS} for e in settlement if e.type == "TreasurePosted"]
        try:
            if refused is None:
                paid_again += [{k: p[k] for k in LEGS}
                               for p in postings(again, engine.settle(state))]
        except (IllegalMove, *UNREADABLE) as e:
            refused = {"index": len(replayed), "command": None, "code": "unsettled",
                       "detail": f"the replayed hand does not settle ({type(e).__name__})"}
    return Readjudication(hand.hand_id, version, hand.rules_version,
                         events=_pairs(recorded, replayed), postings=_pairs(paid, paid_again),
                         events_compared=max(len(recorded), len(replayed)), refused=refused)
