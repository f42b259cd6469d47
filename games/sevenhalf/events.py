"""Events of the 7½ family (past tense), with what each viewer may read of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.contract import Event, Json, Posting

SECRET_KEYS = ("server_seed", "player_seeds", "deck")


def hand_started(data: Json) -> Event:
    """The hand opened: the seeds and deck order go to auditors only, the commitment to all."""
    public = {k: v for k, v in data.items() if k not in SECRET_KEYS}
    return Event("HandStarted", data, frozenset(), public)


def turn_passed(phase: str, seat: int, at: float, index: int | None = None) -> Event:
    """`seat` is now expected to act in `phase` (announce, bet, play, bank, answer)."""
    return Event("TurnPassed", {"phase": phase, "seat": seat, "index": index, "at": at})


def stake_announced(seat: int, amount: int, timeout: bool = False) -> Event:
    """The banker announced the stake of every bet of the hand."""
    return Event("StakeAnnounced", {"seat": seat, "amount": amount, "timeout": timeout})


def deck_shuffled(player_seeds: Sequence[str], deck: Sequence[str]) -> Event:
    """The deck shuffled again once the bets are down, from the server seed and every player
    seed, the bets' after the joins' (Sette e mezzo): to auditors only, as HandStarted's deck."""
    return Event("DeckShuffled", {"player_seeds": list(player_seeds), "deck": list(deck)},
                 frozenset(), {})


def bet_placed(seat: int, index: int, amount: int, timeout: bool = False,
               seed: str | None = None) -> Event:
    """A stake moved from the seat into escrow; `timeout`: placed by the betting timer (Casino
    pirate from rules version 3; version 2 placed it unmarked); `seed`: the player's text for
    the shuffle (Sette e mezzo), public as a join's seed is."""
    data: Json = {"seat": seat, "index": index, "amount": amount}
    if timeout:
        data["timeout"] = True
    if seed:
        data["seed"] = seed
    return Event("BetPlaced", data, postings=(Posting(f"seat:{seat}", "escrow", amount, "bet"),))


def sat_out(seat: int, timeout: bool = False) -> Event:
    """A player takes no part in the hand."""
    return Event("SatOut", {"seat": seat, "timeout": timeout})


def card_dealt(seat: int, index: int, card: str, face_up: bool, timeout: bool = False) -> Event:
    """A card went to a hand; a face-down card is read by its holder only."""
    data = {"seat": seat, "index": index, "card": card, "face_up": face_up, "timeout": timeout}
    if face_up:
        return Event("CardDealt", data)
    public = {k: v for k, v in data.items() if k != "card"}
    return Event("CardDealt", data, frozenset({seat}), public)


def card_turned_up(seat: int, index: int, card: str, timeout: bool = False) -> Event:
    """A face-down card was turned face up."""
    return Event("CardTurnedUp", {"seat": seat, "index": index, "card": card, "timeout": timeout})


def cards_shown(seat: int, index: int, cards: Sequence[str], reason: str,
                declared: Mapping[str, int] | None = None) -> Event:
    """A hand was shown to everyone (bust, 7½, showdown or a call)."""
    return Event("CardsShown", {"seat": seat, "index": index, "cards": list(cards),
                                "reason": reason, "declared": dict(declared or {})})


def stake_lost(seat: int, index: int, amount: int, banker: int) -> Event:
    """A busted player's stake went to the banker at once."""
    return Event("StakeLost", {"seat": seat, "index": index, "amount": amount, "banker": banker},
                 postings=(Posting("escrow", f"seat:{banker}", amount, "bust"),))


def stood(seat: int, index: int, timeout: bool = False,
          declared: Mapping[str, int] | None = None) -> Event:
    """A hand stands; skeleton values declared on it stay with their holder."""
    data: Json = {"seat": seat, "index": index, "timeout": timeout}
    if not declared:
        return Event("Stood", data)
    return Event("Stood", {**data, "declared": dict(declared)}, frozenset({seat}), data)


def hand_split(seat: int, index: int, new_index: int, card: str, amount: int) -> Event:
    """A face-up figure left hand `index` to be played as a new bet of the same stake."""
    data = {"seat": seat, "index": index, "new_index": new_index, "card": card, "amount": amount}
    return Event("HandSplit", data, postings=(Posting(f"seat:{seat}", "escrow", amount, "split"),))


def player_called(seat: int, target: int, timeout: bool = False) -> Event:
    """The meneur called a player to reveal."""
    return Event("PlayerCalled", {"seat": seat, "target": target, "timeout": timeout})


def call_decided(data: Json) -> Event:
    """A called player won or lost against the meneur (or conceded unseen)."""
    return Event("CallDecided", data)


def skeleton_declared(seat: int, index: int, card: str, value: int, picked: bool = False) -> Event:
    """The meneur fixed the value of a face-up skeleton; `picked`: the engine fixed it at its
    best, the meneur having acted on without declaring it (rules version 3 of Casino pirate)."""
    data: Json = {"seat": seat, "index": index, "card": card, "value": value}
    if picked:
        data["picked"] = True
    return Event("SkeletonDeclared", data)


def volunteered(seat: int) -> Event:
    """A player offered to be meneur for the next hand."""
    return Event("Volunteered", {"seat": seat})


def shortfall_recorded(payer: int, payee: int, owed: int, paid: int) -> Event:
    """A payout could not be covered in full; the rest is lost, never owed."""
    return Event("ShortfallRecorded", {"payer": payer, "payee": payee, "owed": owed,
                                       "paid": paid, "shortfall": owed - paid})


def hand_ended(results: Sequence[Json], postings: Sequence[Posting],
               next_banker: int | None, extra: Mapping[str, Any] | None = None) -> Event:
    """The hand is over; `postings` are what `settle` returns."""
    plan = [[p.from_account, p.to_account, p.amount, p.reason] for p in postings]
    return Event("HandEnded", {"results": list(results), "postings": plan,
                               "next_banker": next_banker, **(extra or {})})
