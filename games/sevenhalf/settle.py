"""Money in the 7½ family: stakes sit in escrow; the banker collects, then pays in table order.

A payer who cannot cover a payout pays what his seat holds and the rest is recorded as a
shortfall event; nothing is ever owed across hands and no balance goes negative.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from games.contract import Event, Json, Posting
from games.sevenhalf import events as ev


@dataclass(frozen=True)
class Claim:
    """One bet's outcome: `net` > 0 the banker pays it on top of the stake returned from escrow;
    `net` < 0 the player loses `-net`, the stake from escrow first, the rest from his seat."""

    seat: int
    stake: int
    net: int


@dataclass(frozen=True)
class Shortfall:
    """A payout that was not covered in full."""

    payer: int
    payee: int
    owed: int
    paid: int


def plan(banker: int, claims: Sequence[Claim],
         balances: Mapping[int, int]) -> tuple[list[Posting], list[Shortfall]]:
    """The postings closing the hand: losers pay first so the banker pays winners with them."""
    funds = dict(balances)
    postings: list[Posting] = []
    short: list[Shortfall] = []

    def pay(payer: int, payee: int, owed: int, reason: str) -> None:
        paid = min(owed, funds.get(payer, 0))
        if paid > 0:
            postings.append(Posting(f"seat:{payer}", f"seat:{payee}", paid, reason))
            funds[payer] -= paid
            funds[payee] = funds.get(payee, 0) + paid
        if paid < owed:
            short.append(Shortfall(payer, payee, owed, paid))

    for c in claims:
        if c.net < 0:
            postings.append(Posting("escrow", f"seat:{banker}", c.stake, "lost"))
            funds[banker] = funds.get(banker, 0) + c.stake
            if -c.net > c.stake:
                pay(c.seat, banker, -c.net - c.stake, "lost")
    for c in claims:
        if c.net > 0:
            postings.append(Posting("escrow", f"seat:{c.seat}", c.stake, "returned"))
            funds[c.seat] = funds.get(c.seat, 0) + c.stake
            pay(banker, c.seat, c.net, "won")
    return postings, short


def closing_events(banker: int, claims: Sequence[Claim], balances: Mapping[int, int],
                   results: Sequence[Json], next_banker: int | None) -> list[Event]:
    """The events that end a hand: any shortfalls, then `HandEnded` carrying the plan."""
    postings, short = plan(banker, claims, balances)
    out = [ev.shortfall_recorded(s.payer, s.payee, s.owed, s.paid) for s in short]
    out.append(ev.hand_ended(results, postings, next_banker))
    return out
