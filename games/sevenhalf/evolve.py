"""Folding events into the hand's state: no rule checks, unknown events ignored."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.contract import Event, Posting
from games.frozen import replace
from games.sevenhalf.state import (
    Announcing,
    Answering,
    Banking,
    Betting,
    Ended,
    Hand,
    Phase,
    Playing,
    State,
)


def _phase(data: Mapping[str, Any]) -> Phase:
    seat, at = int(data["seat"]), float(data["at"])
    match data["phase"]:
        case "announce":
            return Announcing(seat, at)
        case "bet":
            return Betting(seat, at)
        case "play":
            return Playing(seat, int(data["index"]), at)
        case "bank":
            return Banking(seat, at)
        case _:
            return Answering(seat, at)


def _credit(balances: Mapping[int, int], seat: int, amount: int) -> dict[int, int]:
    out = dict(balances)
    out[seat] = out.get(seat, 0) + amount
    return out


def _started(state: State, d: Mapping[str, Any]) -> State:
    seats = {int(s["seat"]): s for s in d["seats"]}
    order = tuple(int(s) for s in d["order"])
    balances = {s: int(info["balance"]) for s, info in seats.items()}
    return State(
        game=str(d["game"]), options=dict(d["options"]), seats=tuple(sorted(seats)),
        ages={s: info.get("age") for s, info in seats.items()},
        start_balances=balances, balances=balances, banker=int(d["banker"]), order=order,
        deck=tuple(d["deck"]), hands=tuple(Hand(s) for s in order), bank=Hand(int(d["banker"])),
        commitment=str(d["commitment"]), server_seed=str(d.get("server_seed") or ""),
        player_seeds=tuple(d.get("player_seeds") or ()), started_at=float(d["started_at"]),
        table_started_at=float(d["table_started_at"]),
    )


def evolve(state: State, event: Event) -> State:
    """The state after `event`."""
    d = event.data
    match event.type:
        case "HandStarted":
            return _started(state, d)
        case "TurnPassed":
            return replace(state, phase=_phase(d))
        case "StakeAnnounced":
            return replace(state, stake=int(d["amount"]))
        case "BetPlaced":
            seat, i = int(d["seat"]), int(d["index"])
            state = state.with_hand(i, replace(state.hands[i], stake=int(d["amount"])))
            seeds = (*state.bet_seeds, str(d["seed"])) if d.get("seed") else state.bet_seeds
            return replace(state, balances=_credit(state.balances, seat, -int(d["amount"])),
                           decided=state.decided | {seat}, bet_seeds=seeds)
        case "DeckShuffled":
            return replace(state, deck=tuple(d["deck"])) if "deck" in d else state
        case "SatOut":
            seat = int(d["seat"])
            hands = tuple(replace(h, status="out") if h.seat == seat else h for h in state.hands)
            return replace(state, hands=hands, decided=state.decided | {seat})
        case "CardDealt":
            i = int(d["index"])
            state = state.with_hand(i, state.hand(i).with_card(str(d["card"]), bool(d["face_up"])))
            return replace(state, drawn=state.drawn + 1)
        case "CardTurnedUp":
            i, card = int(d["index"]), str(d["card"])
            hand = state.hand(i)
            hidden = tuple(c for c in hand.hidden if c != card)
            return state.with_hand(i, replace(hand, hidden=hidden))
        case "CardsShown":
            i = int(d["index"])
            hand = state.hand(i)
            status = {"bust": "bust", "seven_half": "seven_half"}.get(str(d["reason"]), hand.status)
            declared = {**hand.declared, **d.get("declared", {})}
            return state.with_hand(i, replace(hand, hidden=(), status=status,
                                              declared=declared))
        case "StakeLost":
            banker, amount = int(d["banker"]), int(d["amount"])
            return replace(state, balances=_credit(state.balances, banker, amount))
        case "Stood":
            i = int(d["index"])
            hand = state.hand(i)
            declared = {**hand.declared, **d.get("declared", {})}
            return state.with_hand(i, replace(hand, status="stood", declared=declared))
        case "HandSplit":
            return _split(state, d)
        case "PlayerCalled":
            return replace(state, called=(*state.called, int(d["target"])))
        case "CallDecided":
            i = int(d["index"])
            hand = replace(state.hands[i], status="won" if d["outcome"] == "won" else "lost")
            first = state.first_seven_half
            if first is None and d.get("seven_half"):
                first = int(d["seat"])
            return replace(state.with_hand(i, hand), first_seven_half=first,
                           results=(*state.results, dict(d)))
        case "SkeletonDeclared":
            i = int(d["index"])
            hand = state.hand(i)
            declared = {**hand.declared, str(d["card"]): int(d["value"])}
            return state.with_hand(i, replace(hand, declared=declared))
        case "Volunteered":
            return replace(state, volunteers=(*state.volunteers, int(d["seat"])))
        case "HandEnded":
            plan = tuple(Posting(str(a), str(b), int(n), str(r)) for a, b, n, r in d["postings"])
            balances = dict(state.balances)
            for p in plan:
                for account, sign in ((p.from_account, -1), (p.to_account, 1)):
                    if account.startswith("seat:"):
                        balances = _credit(balances, int(account[5:]), sign * p.amount)
            nb = d.get("next_banker")
            return replace(state, phase=Ended(), plan=plan, balances=balances,
                           results=tuple(d["results"]),
                           next_banker=None if nb is None else int(nb))
        case _:
            return state


def _split(state: State, d: Mapping[str, Any]) -> State:
    seat, i, new = int(d["seat"]), int(d["index"]), int(d["new_index"])
    card, amount = str(d["card"]), int(d["amount"])
    old = state.hands[i]
    kept = replace(old, cards=tuple(c for c in old.cards if c != card))
    hands = list(state.hands)
    hands[i] = kept
    hands.insert(new, Hand(seat, cards=(card,), stake=amount))
    return replace(state, hands=tuple(hands), balances=_credit(state.balances, seat, -amount))
