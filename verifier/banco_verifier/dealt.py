"""The cards dealt walked against the deck: every card an event hands out (dealt, drawn, turned
from the pile) must be the next one of the deck the seeds give, in order. Read game by game from
the rules, as Banco's own verification walks them; js/dealt.mjs is the same reading in Node."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SEVEN_HALF_FAMILY = ("sette-e-mezzo", "siete-y-media", "casino-pirate")
# How many cards an event withheld from the viewer took off the deck, by the rules (a Cassino
# packet is two cards, a Pirate pairs hand three, a draw one): its text is not there to count.
WITHHELD_TAKES = {"CardDealt": 1, "CardDrawn": 1, "cassino/CardsDealt": 2, "pirate-pairs/CardsDealt": 3}

Shuffle = Callable[[list[str], str], list[str]]  # cards and label -> their order from the seeds


class Mismatch(Exception):
    """A card dealt is not the one the deck gives, at the event named."""


@dataclass
class Walk:
    """What the walk compared: cards checked, and events it could not read (withheld)."""

    checked: int = 0
    withheld: int = 0
    lost_at: int | None = None  # the version after which the deck's position is not known


@dataclass
class _Pile:
    cards: list[str]
    discards: list[str] = field(default_factory=list)
    reshuffles: int = 0


def _compare(event: dict, dealt: list[str], expected: list[str], walk: Walk) -> None:
    if dealt != expected:
        raise Mismatch(f"version {event['version']} ({event['type']}) deals {' '.join(dealt) or 'nothing'},"
                       f" the deck gives {' '.join(expected) or 'nothing'} there")
    walk.checked += len(dealt)


def _seven_half(events: list[dict], deck: list[str], walk: Walk) -> None:
    """Each card dealt the deck's next; each hand shown (CardsShown) the cards dealt to it, and
    each card turned up (CardTurnedUp) or split off (HandSplit) one dealt to its hand. A deal
    withheld from the viewer still took the deck's next card, to a hand he cannot tell: a card
    shown later that no hand he saw was dealt must be one of those, each shown once."""
    at = {card: i for i, card in enumerate(deck)}
    top = 0
    hands: dict[int, list[int]] = {}  # the positions dealt to each hand (a split moves one)
    unseen: set[int] = set()  # positions dealt withheld from the viewer and not shown since
    for e in events:
        kind, d = e["type"], e["data"]
        if kind == "CardDealt":
            if d is None:
                walk.withheld += 1
                unseen.add(top)
            else:
                _compare(e, [d["card"]], deck[top:top + 1], walk)
                hands.setdefault(d["index"], []).append(top)
            top += 1
        elif kind in ("CardsShown", "CardTurnedUp", "HandSplit") and d is not None:
            held = hands.get(d["index"], [])
            shown = d["cards"] if kind == "CardsShown" else [d["card"]]
            places = _places(shown, held, unseen, at, whole=kind == "CardsShown")
            if places is None:
                said = " ".join(map(str, shown)) if isinstance(shown, list) else str(shown)
                dealt = " ".join(deck[p] for p in held) or "nothing"
                raise Mismatch(f"version {e['version']} ({kind}) shows {said or 'nothing'},"
                               f" hand {d['index']} was dealt {dealt}"
                               + (" and cards withheld from this viewer" if unseen else ""))
            unseen -= set(places)
            if kind == "CardsShown":
                hands[d["index"]] = places
            elif kind == "CardTurnedUp":
                hands[d["index"]] = sorted({*held, *places})
            else:
                hands[d["index"]] = [p for p in held if p not in places]
                hands[d["new_index"]] = places


def _places(shown: object, held: list[int], unseen: set[int], at: dict[str, int],
            whole: bool) -> list[int] | None:
    """The deck positions of the cards shown, each one dealt to the hand or dealt withheld and
    not shown since, and for a whole hand every card dealt to it in the order dealt; None when
    they are not."""
    if not isinstance(shown, list) or not all(isinstance(c, str) for c in shown):
        return None
    places = [at.get(c, -1) for c in shown]
    if any(p not in held and p not in unseen for p in places) or len(set(places)) < len(places):
        return None
    if whole and (places != sorted(places) or not set(held) <= set(places)):
        return None
    return places


def _cassino(events: list[dict], deck: list[str], unshuffled: list[str], shuffle: Shuffle,
             walk: Walk) -> None:
    top = 0
    for e in events:
        kind, d = e["type"], e["data"]
        if kind == "DealerCardsDrawn" and d is not None:
            # The cut for the dealer: the top of a shuffle of its own, one card a contender.
            shown = [c["card"] for c in d["cards"]]
            _compare(e, shown, shuffle(unshuffled, f"dealer-draw-{d['attempt']}")[:len(shown)], walk)
        elif kind in ("CardsDealt", "TableDealt", "CardDrawn"):
            if d is None:
                taken = WITHHELD_TAKES.get(f"cassino/{kind}", WITHHELD_TAKES.get(kind))
                if taken is None:
                    walk.lost_at = e["version"]
                    return
                walk.withheld += 1
                top += taken
                continue
            dealt = d["cards"] if "cards" in d else [d["card"]]
            _compare(e, list(dealt), deck[top:top + len(dealt)], walk)
            top += len(dealt)


def _pirate_pairs(events: list[dict], deck: list[str], seats: list[int], shuffle: Shuffle,
                  walk: Walk) -> None:
    pile = _Pile(list(deck))
    n, dealt_out = len(seats), False
    hands: dict[int, list[str]] = {}

    def hand_of(i: int, count: int) -> list[str]:
        return [deck[k * n + i] for k in range(count) if k * n + i < len(deck)]

    for e in events:
        kind, d = e["type"], e["data"]
        if kind == "CardsDealt":
            # The deal goes round the seats a card at a time: a seat's k-th card is the deck's
            # card k * n + (its place among the seats).
            if d is None:
                walk.withheld += 1
                continue
            _compare(e, list(d["cards"]), hand_of(seats.index(d["seat"]), len(d["cards"])), walk)
            hands[d["seat"]] = list(d["cards"])
            continue
        if kind not in ("CardDrawn", "PlayerChallenged", "PlayerEliminated", "DiscardsReshuffled"):
            continue
        if not dealt_out:  # the pile is what the deal left; a withheld hand took what it gives
            taken = WITHHELD_TAKES["pirate-pairs/CardsDealt"]
            gone = {c for i, seat in enumerate(seats) for c in hands.get(seat, hand_of(i, taken))}
            pile.cards, dealt_out = [c for c in pile.cards if c not in gone], True
        if kind in ("CardDrawn", "PlayerChallenged"):
            if d is None:
                walk.withheld += 1
                pile.cards = pile.cards[1:]
                continue
            _compare(e, [d["card"]], pile.cards[:1], walk)
            pile.cards = [c for c in pile.cards if c != d["card"]]
            if kind == "PlayerChallenged" and d["paired"]:
                pile.discards.append(d["card"])
        elif kind == "PlayerEliminated":
            if d is None:
                walk.lost_at = e["version"]  # its cards went to the discards unseen
                return
            pile.discards += d["cards"]
            if len(pile.discards) > len(deck):  # what is reshuffled and drawn is the deck's
                raise Mismatch(f"version {e['version']} ({kind}) makes {len(pile.discards)} discards,"
                               f" more than the deck's {len(deck)} cards")
        else:  # the discards became a new pile, by a shuffle labelled with its number
            number = pile.reshuffles + 1 if d is None else d["reshuffle"]
            expected = shuffle(pile.discards, f"reshuffle-{number}")
            if d is None:
                walk.withheld += 1
            else:
                _compare(e, list(d["pile"]), expected, walk)
            pile = _Pile(expected, [], number)


def walk(game: str, events: list[dict], unshuffled: list[str], seats: list[int],
         shuffle: Shuffle) -> Walk | None:
    """Walk the hand's engine events (`type`, `data` (None when withheld), `version`) against
    the deck the seeds give; None for a game whose deals are not walked here. Raises `Mismatch`."""
    deck = shuffle(unshuffled, "deck")
    out = Walk()
    if game in SEVEN_HALF_FAMILY:
        _seven_half(events, deck, out)
    elif game == "cassino":
        _cassino(events, deck, unshuffled, shuffle, out)
    elif game == "pirate-pairs":
        _pirate_pairs(events, deck, sorted(seats), shuffle, out)
    else:
        return None
    return out
