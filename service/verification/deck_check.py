"""The deck checks: the revealed seed matches its commitment, the recorded deck order is the
one the seeds give, and every card dealt came off that deck in order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.game_records import engine_event
from events.model import StoredEvent
from games import deck
from games.cassino.cards import DECK as CASSINO_DECK
from games.contract import SeedMaterial
from games.sevenhalf import cards as sevenhalf_cards
from service.verification.findings import Check, failed, passed, ref
from service.verification.hand_log import HandLog

SEVENHALF = {"sette-e-mezzo", "siete-y-media", "casino-pirate"}
# Where each engine's opening event keeps the shuffled order (auditor-only data).
ORDER_KEY = {"pirate-pairs": "pile", "cassino": "deck", **{g: "deck" for g in SEVENHALF}}


def material(hand: HandLog) -> SeedMaterial | None:
    """The hand's seeds (server seed and the players' in seat order), once known."""
    seed = hand.server_seed()
    if seed is None:
        return None
    return SeedMaterial(seed, tuple(s.get("seed") or "" for s in hand.seats))


def bet_seeds(hand: HandLog) -> tuple[str, ...]:
    """The seeds the hand's bets carried, in the order the bets were placed (Sette e mezzo)."""
    bets = (e.data["data"] for e in hand.game_events() if e.type == "game.BetPlaced")
    return tuple(str(d["seed"]) for d in bets if d.get("seed"))


def dealing_material(hand: HandLog) -> SeedMaterial | None:
    """The seeds of the deck the cards come off: the joins' in seat order, then the bets' in
    the order they were placed (docs/fair-decks.md); the joins' alone when no bet had one."""
    seeds = material(hand)
    if seeds is None:
        return None
    return SeedMaterial(seeds.server_seed, (*seeds.player_seeds, *bet_seeds(hand)))


def composition(hand: HandLog) -> tuple[str, ...]:
    """The unshuffled deck of the hand's game."""
    if hand.game in SEVENHALF:
        return sevenhalf_cards.composition(hand.game, hand.engine.initial_state(hand.options).options)
    return deck.pirate_pairs_55() if hand.game == "pirate-pairs" else CASSINO_DECK


def commitment_check(hand: HandLog) -> Check:
    """SHA-256 of the revealed seed equals the commitment recorded before the deal."""
    seed = hand.server_seed()
    recorded = hand.began.data.get("commitment")
    if seed is None:
        return failed("deck.commitment", hand.began, "no server seed was recorded")
    try:
        computed = deck.commitment(seed)
    except ValueError:
        return failed("deck.commitment", hand.find("SeedRevealed") or hand.opening(),
                      "the server seed is not hex", server_seed=seed)
    evidence = {"commitment": recorded, "server_seed": seed, "sha256_of_seed": computed}
    if computed != recorded:
        return failed("deck.commitment", hand.find("SeedRevealed") or hand.began,
                      "SHA-256 of the seed differs from the commitment", **evidence)
    return passed("deck.commitment", **evidence)


def order_check(hand: HandLog) -> Check:
    """The opening event's deck order equals the shuffle recomputed from the seeds, and so does
    the order a DeckShuffled recorded once bets had carried seeds (from every seed)."""
    opening, seeds, dealing = hand.opening(), material(hand), dealing_material(hand)
    if opening is None or seeds is None or dealing is None:
        return failed("deck.order", hand.began, "the hand has no opening event")
    again = next((e for e in hand.game_events() if e.type == "game.DeckShuffled"), None)
    if again is None and dealing != seeds:
        return failed("deck.order", opening, "bets carried seeds but the deck was not shuffled"
                      " again with them")
    computed: list[str] = []
    for event, used in ((opening, seeds), *(((again, dealing),) if again else ())):
        recorded = list(event.data["data"].get(ORDER_KEY[hand.game]) or [])
        try:
            computed = list(deck.shuffled(composition(hand), used))
        except ValueError:
            return failed("deck.order", event, "the seeds cannot be read")
        if recorded != computed:
            at = next((i for i, (a, b) in enumerate(zip(recorded, computed, strict=False)) if a != b),
                      min(len(recorded), len(computed)))
            return failed("deck.order", event, f"the recorded order differs at position {at}",
                          position=at, recorded=recorded[at:at + 1], recomputed=computed[at:at + 1])
    return passed("deck.order", cards=len(computed), recomputed=computed)


def _expected(hand: HandLog, state: Any, event: StoredEvent) -> tuple[str, list[str]] | None:
    """The cards `event` must show as taken from the deck, and the field holding them."""
    kind, data = event.type.split(".", 1)[1], event.data["data"]
    if hand.game in SEVENHALF and kind == "CardDealt":
        return "card", [state.deck[state.drawn]]
    if hand.game == "cassino" and kind in ("CardsDealt", "TableDealt"):
        return "cards", list(state.stock[:len(data["cards"])])
    if hand.game == "cassino" and kind == "CardDrawn":
        return "card", [state.stock[0]]
    if hand.game == "pirate-pairs":
        if kind == "CardsDealt":
            opening = hand.opening()
            assert opening is not None
            pile, seats = opening.data["data"]["pile"], sorted(p.seat for p in state.players)
            i, n = seats.index(data["seat"]), len(seats)
            return "cards", [pile[k * n + i] for k in range(len(data["cards"]))]
        if kind in ("CardDrawn", "PlayerChallenged"):
            return "card", [state.pile[0]]
        if kind == "DiscardsReshuffled":
            shuffled = deck.shuffled(state.discards, state.material, f"reshuffle-{data['reshuffle']}")
            return "pile", list(shuffled)
    return None


def _shown_otherwise(hand: HandLog, state: Any, event: StoredEvent) -> Check | None:
    """A 7½ hand shown (CardsShown) with other cards than were dealt to it, or a card turned up
    (CardTurnedUp) or split off (HandSplit) that its hand was not dealt: failed, in the
    standalone verifiers' and the browser's words; None otherwise."""
    kind = event.type.split(".", 1)[1]
    if hand.game not in SEVENHALF or kind not in ("CardsShown", "CardTurnedUp", "HandSplit"):
        return None
    data = event.data["data"]
    dealt = list(state.hand(int(data["index"])).cards)
    shown = data["cards"] if kind == "CardsShown" else [data["card"]]
    if (shown == dealt) if kind == "CardsShown" else (shown[0] in dealt):
        return None
    said = " ".join(map(str, shown)) if isinstance(shown, list) else str(shown)
    return Check("deck.dealt", False, {
        "reason": f"version {event.version} ({kind}) shows {said or 'nothing'}, hand"
                  f" {data['index']} was dealt {' '.join(dealt) or 'nothing'}",
        "shown": shown, "dealt": dealt}, ref(event))


def _dealer_draw(hand: HandLog, event: StoredEvent) -> tuple[list[str], list[str]] | None:
    """Cassino's cut for the dealer: the cards shown, and the top of the shuffle labelled
    `dealer-draw-<attempt>` they must be (one a contender, in seat order)."""
    if hand.game != "cassino" or event.type.split(".", 1)[1] != "DealerCardsDrawn":
        return None
    seeds = material(hand)
    if seeds is None:
        raise ValueError("no seeds")
    data = event.data["data"]
    shown = [c["card"] for c in data["cards"]]
    return shown, list(deck.shuffled(CASSINO_DECK, seeds, f"dealer-draw-{data['attempt']}")[:len(shown)])


# What a card compared was dealt for, in the words both checks (this one and the browser's,
# static/deck_check.js) use to say what they counted.
COUNTED = {"dealer_draw": "to choose the dealer", "deck": "from the deck",
           "reshuffled": "in reshuffled piles"}


def counted_summary(counted: dict[str, int]) -> str:
    """"54 cards dealt: 2 to choose the dealer, 52 from the deck" (the parts only when more
    than one kind was counted)."""
    total = sum(counted.values())
    parts = [f"{n} {COUNTED[k]}" for k, n in counted.items() if n]
    noun = "card" if total == 1 else "cards"
    return f"{total} {noun} dealt" + (f": {', '.join(parts)}" if len(parts) > 1 else "")


def dealt_check(hand: HandLog) -> Check:
    """Every card dealt or drawn is the next one of the deck the seeds give, in order (and
    Cassino's cut for the dealer the top of its own shuffle)."""
    engine, opening = hand.engine, hand.opening()
    state = engine.initial_state(hand.options)
    counted = {"dealer_draw": 0, "deck": 0, "reshuffled": 0}
    for event in hand.game_events():
        try:
            cut = _dealer_draw(hand, event)
            if cut is not None:
                if cut[0] != cut[1]:
                    return failed("deck.dealt", event, "a card drawn for the dealer is not the"
                                  " shuffle's next card", dealt=cut[0], expected=cut[1])
                counted["dealer_draw"] += len(cut[1])
            shown = _shown_otherwise(hand, state, event)
            if shown is not None:
                return shown
            expected = None if event is opening else _expected(hand, state, event)
            if expected is not None:
                key, cards = expected
                got = event.data["data"].get(key)
                given: Sequence[str] = got if isinstance(got, list) else [got]
                if list(given) != cards:
                    return failed("deck.dealt", event, "a card dealt is not the deck's next card",
                                  dealt=list(given), expected=cards)
                counted["reshuffled" if key == "pile" else "deck"] += len(cards)
            state = engine.evolve(state, engine_event(event))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            return failed("deck.dealt", event, f"the event cannot be read ({type(e).__name__})")
    counted = {k: n for k, n in counted.items() if n}
    return passed("deck.dealt", cards_checked=sum(counted.values()), counted=counted,
                  summary=counted_summary(counted))


def deck_checks(hand: HandLog) -> list[Check]:
    """The three deck checks of a hand."""
    return [commitment_check(hand), order_check(hand), dealt_check(hand)]
