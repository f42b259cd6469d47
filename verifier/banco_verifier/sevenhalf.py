"""The 7½ family's totals and payouts, re-played from a hand's events by this package's own
reading of the rules (Sette e mezzo and Siete y media).

Totals are in half-points (7½ = 15). Sette e mezzo: A..7 at face value, J/Q/K ½; the banker
wins ties, a banker over 7½ pays 1:1 every hand still in. Siete y media: 1..7 at face value,
10/11/12 ½; 7½ is paid double, a bank at 7½ takes double (or `both_seven_half_pays` times the
stake from a player at 7½ too), a bank over 7½ pays 1:1 (double at 7½). A bust player lost his
stake when he busted. Settlement: the losers' stakes go to the banker first, then each winner
gets his stake back and his winnings from the banker, as far as the banker's seat holds them.
"""

from __future__ import annotations

SEVEN_HALF = 15
BANK = -1
DECK_SIZE = 40  # both games' deck: four suits of ten


def value(game: str, card: str) -> int:
    rank = card[:-1]
    if game == "sette-e-mezzo":
        return 1 if rank in ("J", "Q", "K") else 2 if rank == "A" else 2 * int(rank)
    return 1 if rank in ("10", "11", "12") else 2 * int(rank)


def replay(game: str, events: list[dict]) -> list[str]:
    """What differs between the recorded `HandEnded` and the rules re-played from the hand's
    engine events (`{"type", "data"}`, in order); empty when nothing does."""
    dealt = sum(1 for e in events if e["type"] == "CardDealt")
    if dealt > DECK_SIZE:  # the hands are walked card by card: no more than the deck holds
        return [f"{dealt} cards dealt, the deck holds {DECK_SIZE}"]
    cards: dict[int, list[str]] = {}
    stakes: dict[int, int] = {}
    owner: dict[int, int] = {}
    balances: dict[int, int] = {}
    turned: set[int] = set()
    options: dict = {}
    banker = None
    ended = None
    for e in events:
        kind, d = e["type"], e["data"]
        if kind == "HandStarted":
            banker, options = d["banker"], d["options"]
            balances = {s["seat"]: s["balance"] for s in d["seats"]}
        elif kind == "BetPlaced":
            stakes[d["index"]], owner[d["index"]] = d["amount"], d["seat"]
            balances[d["seat"]] -= d["amount"]
        elif kind == "HandSplit":
            cards[d["index"]].remove(d["card"])
            cards[d["new_index"]] = [d["card"]]
            stakes[d["new_index"]], owner[d["new_index"]] = d["amount"], d["seat"]
            balances[d["seat"]] -= d["amount"]
        elif kind == "CardDealt":
            cards.setdefault(d["index"], []).append(d["card"])
            if d["index"] == BANK and not d["face_up"]:
                turned.discard(BANK)
        elif kind == "CardTurnedUp" and d["index"] == BANK:
            turned.add(BANK)
        elif kind == "StakeLost":
            balances[d["banker"]] += d["amount"]
        elif kind == "HandEnded":
            ended = d
    if ended is None or banker is None:
        return ["the hand has not ended"]
    total = {i: sum(value(game, c) for c in cs) for i, cs in cards.items()}
    bank = total.get(BANK, 0)
    both = int(options.get("both_seven_half_pays", 4))
    wrong: list[str] = []
    claims = []
    recorded = {r["index"]: r for r in ended["results"]}
    for i in sorted(stakes):
        s, t = stakes[i], total.get(i, 0)
        if t > SEVEN_HALF:
            net, outcome = -s, "bust"
        elif game == "sette-e-mezzo":
            net = s if bank > SEVEN_HALF or t > bank else -s
            outcome = "won" if net > 0 else "lost"
        else:
            if bank > SEVEN_HALF:
                net = 2 * s if t == SEVEN_HALF else s
            elif bank == SEVEN_HALF:
                net = -(both * s if t == SEVEN_HALF else 2 * s)
            elif t == SEVEN_HALF:
                net = 2 * s
            else:
                net = s if t > bank else -s
            outcome = "won" if net > 0 else "lost"
        if outcome != "bust":
            claims.append((owner[i], s, net))
        want = {"seat": owner[i], "index": i, "stake": s, "total": t, "outcome": outcome, "net": net}
        got = {k: recorded.get(i, {}).get(k) for k in want}
        if got != want:
            wrong.append(f"hand {i}: recorded {got}, re-played {want}")
    bank_row = recorded.get(BANK, {})
    if bank_row.get("total") not in (bank, None) or (bank_row.get("total") is None and BANK in turned):
        wrong.append(f"the bank: recorded total {bank_row.get('total')}, re-played {bank}")
    postings = _plan(banker, claims, balances)
    if [list(p) for p in ended["postings"]] != postings:
        wrong.append(f"payouts: recorded {ended['postings']}, re-played {postings}")
    return wrong


def _plan(banker: int, claims: list[tuple[int, int, int]], balances: dict[int, int]) -> list[list]:
    funds = dict(balances)
    out: list[list] = []

    def pay(payer: int, payee: int, owed: int, reason: str) -> None:
        paid = min(owed, funds.get(payer, 0))
        if paid > 0:
            out.append([f"seat:{payer}", f"seat:{payee}", paid, reason])
            funds[payer] -= paid
            funds[payee] = funds.get(payee, 0) + paid

    for seat, stake, net in claims:
        if net < 0:
            out.append(["escrow", f"seat:{banker}", stake, "lost"])
            funds[banker] = funds.get(banker, 0) + stake
            if -net > stake:
                pay(seat, banker, -net - stake, "lost")
    for seat, stake, net in claims:
        if net > 0:
            out.append(["escrow", f"seat:{seat}", stake, "returned"])
            funds[seat] = funds.get(seat, 0) + stake
            pay(banker, seat, net, "won")
    return out
