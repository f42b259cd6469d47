// The cards dealt walked against the deck: every card an event hands out (dealt, drawn, turned
// from the pile) must be the next one of the deck the seeds give, in order. Read game by game from
// the rules, as Banco's own verification walks them; banco_verifier/dealt.py is the same reading.

const SEVEN_HALF_FAMILY = ["sette-e-mezzo", "siete-y-media", "casino-pirate"];
// How many cards an event withheld from the viewer took off the deck, by the rules (a Cassino
// packet is two cards, a Pirate pairs hand three, a draw one): its text is not there to count.
const WITHHELD_TAKES = { CardDealt: 1, CardDrawn: 1, "cassino/CardsDealt": 2, "pirate-pairs/CardsDealt": 3 };

// A card dealt is not the one the deck gives, at the event named.
export class Mismatch extends Error {}

const sameCards = (a, b) => a.length === b.length && a.every((c, i) => c === b[i]);

function compare(event, dealt, expected, walk) {
  if (!sameCards(dealt, expected)) {
    throw new Mismatch(`version ${event.version} (${event.type}) deals ${dealt.join(" ") || "nothing"},`
      + ` the deck gives ${expected.join(" ") || "nothing"} there`);
  }
  walk.checked += dealt.length;
}

// Each card dealt the deck's next; each hand shown (CardsShown) the cards dealt to it, and each
// card turned up (CardTurnedUp) or split off (HandSplit) one dealt to its hand. A deal withheld
// from the viewer still took the deck's next card, to a hand he cannot tell: a card shown later
// that no hand he saw was dealt must be one of those, each shown once.
function sevenHalf(events, deck, walk) {
  const at = new Map(deck.map((card, i) => [card, i]));
  let top = 0;
  const hands = new Map(); // the positions dealt to each hand (a split moves one)
  const unseen = new Set(); // positions dealt withheld from the viewer and not shown since
  for (const e of events) {
    const d = e.data;
    if (e.type === "CardDealt") {
      if (d == null) { walk.withheld++; unseen.add(top); }
      else {
        compare(e, [d.card], deck.slice(top, top + 1), walk);
        if (!hands.has(d.index)) hands.set(d.index, []);
        hands.get(d.index).push(top);
      }
      top++;
    } else if (["CardsShown", "CardTurnedUp", "HandSplit"].includes(e.type) && d != null) {
      const held = hands.get(d.index) ?? [];
      const shown = e.type === "CardsShown" ? d.cards : [d.card];
      const places = placesOf(shown, held, unseen, at, e.type === "CardsShown");
      if (places === null) {
        const said = Array.isArray(shown) ? shown.map(String).join(" ") : String(shown);
        throw new Mismatch(`version ${e.version} (${e.type}) shows ${said || "nothing"}, hand ${d.index}`
          + ` was dealt ${held.map((p) => deck[p]).join(" ") || "nothing"}`
          + (unseen.size ? " and cards withheld from this viewer" : ""));
      }
      for (const p of places) unseen.delete(p);
      if (e.type === "CardsShown") hands.set(d.index, places);
      else if (e.type === "CardTurnedUp") hands.set(d.index, [...new Set([...held, ...places])].sort((a, b) => a - b));
      else {
        hands.set(d.index, held.filter((p) => !places.includes(p)));
        hands.set(d.new_index, places);
      }
    }
  }
}

// The deck positions of the cards shown, each one dealt to the hand or dealt withheld and not
// shown since, and for a whole hand every card dealt to it in the order dealt; null when they
// are not.
function placesOf(shown, held, unseen, at, whole) {
  if (!Array.isArray(shown) || !shown.every((c) => typeof c === "string")) return null;
  const places = shown.map((c) => at.get(c) ?? -1);
  if (places.some((p) => !held.includes(p) && !unseen.has(p)) || new Set(places).size < places.length) {
    return null;
  }
  if (whole && (places.some((p, i) => i > 0 && places[i - 1] > p) || !held.every((p) => places.includes(p)))) {
    return null;
  }
  return places;
}

function cassino(events, deck, unshuffled, shuffle, walk) {
  let top = 0;
  for (const e of events) {
    const kind = e.type, d = e.data;
    if (kind === "DealerCardsDrawn" && d != null) {
      // The cut for the dealer: the top of a shuffle of its own, one card a contender.
      const shown = d.cards.map((c) => c.card);
      compare(e, shown, shuffle(unshuffled, `dealer-draw-${d.attempt}`).slice(0, shown.length), walk);
    } else if (["CardsDealt", "TableDealt", "CardDrawn"].includes(kind)) {
      if (d == null) {
        const taken = WITHHELD_TAKES[`cassino/${kind}`] ?? WITHHELD_TAKES[kind];
        if (taken === undefined) { walk.lost_at = e.version; return; }
        walk.withheld++;
        top += taken;
        continue;
      }
      const dealt = "cards" in d ? d.cards : [d.card];
      compare(e, dealt, deck.slice(top, top + dealt.length), walk);
      top += dealt.length;
    }
  }
}

function piratePairs(events, deck, seats, shuffle, walk) {
  let pile = { cards: [...deck], discards: [], reshuffles: 0 };
  const n = seats.length, hands = new Map();
  let dealtOut = false;
  const handOf = (i, count) => [...Array(count).keys()].map((k) => k * n + i).filter((p) => p < deck.length).map((p) => deck[p]);
  for (const e of events) {
    const kind = e.type, d = e.data;
    if (kind === "CardsDealt") {
      // The deal goes round the seats a card at a time: a seat's k-th card is the deck's
      // card k * n + (its place among the seats).
      if (d == null) { walk.withheld++; continue; }
      compare(e, d.cards, handOf(seats.indexOf(d.seat), d.cards.length), walk);
      hands.set(d.seat, d.cards);
      continue;
    }
    if (!["CardDrawn", "PlayerChallenged", "PlayerEliminated", "DiscardsReshuffled"].includes(kind)) continue;
    if (!dealtOut) { // the pile is what the deal left; a withheld hand took what it gives
      const gone = new Set(seats.flatMap((seat, i) => hands.get(seat) ?? handOf(i, WITHHELD_TAKES["pirate-pairs/CardsDealt"])));
      pile.cards = pile.cards.filter((c) => !gone.has(c));
      dealtOut = true;
    }
    if (kind === "CardDrawn" || kind === "PlayerChallenged") {
      if (d == null) { walk.withheld++; pile.cards = pile.cards.slice(1); continue; }
      compare(e, [d.card], pile.cards.slice(0, 1), walk);
      pile.cards = pile.cards.filter((c) => c !== d.card);
      if (kind === "PlayerChallenged" && d.paired) pile.discards.push(d.card);
    } else if (kind === "PlayerEliminated") {
      if (d == null) { walk.lost_at = e.version; return; } // its cards went to the discards unseen
      pile.discards.push(...d.cards);
      // What is reshuffled and drawn is the deck's.
      if (pile.discards.length > deck.length) {
        throw new Mismatch(`version ${e.version} (${kind}) makes ${pile.discards.length} discards, more than the deck's ${deck.length} cards`);
      }
    } else { // the discards became a new pile, by a shuffle labelled with its number
      const number = d == null ? pile.reshuffles + 1 : d.reshuffle;
      const expected = shuffle(pile.discards, `reshuffle-${number}`);
      if (d == null) walk.withheld++;
      else compare(e, d.pile, expected, walk);
      pile = { cards: expected, discards: [], reshuffles: number };
    }
  }
}

// Walk the hand's engine events ({type, data (null when withheld), version}) against the deck
// the seeds give; null for a game whose deals are not walked here. Throws Mismatch.
export function walk(game, events, unshuffled, seats, shuffle) {
  const out = { checked: 0, withheld: 0, lost_at: null };
  const deck = shuffle(unshuffled, "deck");
  if (SEVEN_HALF_FAMILY.includes(game)) sevenHalf(events, deck, out);
  else if (game === "cassino") cassino(events, deck, unshuffled, shuffle, out);
  else if (game === "pirate-pairs") piratePairs(events, deck, [...seats].sort((a, b) => a - b), shuffle, out);
  else return null;
  return out;
}
