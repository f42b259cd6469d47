// A hand's deck checks recomputed in the browser, as service/verification/deck_check.py makes
// them on the server, from what the replay and the hand give (to an auditor: everything; to a
// player: the seeds once revealed and the cards he was shown): `deck.commitment`, `deck.order`
// and `deck.dealt`. Nothing the server concluded is used: the deck is shuffled here, from the
// seeds, and every card the events show is compared with the card that deck puts there.
import { commitment, decks, shuffled } from "./fair_deck.js";

const SEVENHALF = new Set(["sette-e-mezzo", "siete-y-media", "casino-pirate"]);
// Where each game's opening event keeps the recorded order (auditors only).
const ORDER_KEY = { "pirate-pairs": "pile", cassino: "deck", "sette-e-mezzo": "deck",
  "siete-y-media": "deck", "casino-pirate": "deck" };

function composition(game, opening) {
  if (game === "sette-e-mezzo") return decks.italian40();
  if (game === "siete-y-media") return decks.spanish40();
  if (game === "casino-pirate") return decks.pirateCasino(opening.data.options || {});
  if (game === "pirate-pairs") return decks.piratePairs55();
  return decks.french52();
}

const at = (step) => (step ? { step: step.step, version: step.version, type: step.type } : null);
const result = (name, passed, detail, step = null, evidence = {}) =>
  ({ name, passed, detail, event: at(step), evidence });

// The seeds as the replay (and the hand, for the server seed) show them to this token.
export function seedsOf(hand, replay) {
  const began = replay.steps.find((s) => s.type === "HandBegan");
  const revealed = replay.steps.find((s) => s.type === "SeedRevealed");
  return {
    server_seed: revealed?.data.server_seed ?? hand?.server_seed ?? null,
    // The joins' in seat order, then the bets' in the order they were placed (Sette e mezzo):
    // the seeds the cards were shuffled with (docs/fair-decks.md).
    player_seeds: [...(began?.data.seats || []).map((s) => s.seed || ""),
      ...replay.steps.filter((s) => s.type === "BetPlaced" && s.data.seed).map((s) => s.data.seed)],
    joined: (began?.data.seats || []).length,
    commitment: began?.data.commitment ?? hand?.commitment ?? null,
    revealed: Boolean(revealed),
  };
}

// The cards each dealing event must show, game by game: {step, expected, shown}, in order.
// `shown` holds null where the card is hidden from this token. A 7½ card shown after its deal
// (a hand shown, a card turned up or split off) yields {step, later}, `later` the cards dealt
// hidden from this token it shows where the deck dealt them, or {step, otherwise} when it shows
// other cards than were dealt there.
async function* dealings(game, order, opening, steps, seeds) {
  const hidden = (n) => Array(n).fill(null);
  const deal = (label, cards) => shuffled(cards, seeds.server_seed, seeds.player_seeds, label);
  if (SEVENHALF.has(game)) {
    // Every deal takes the deck's next position, hidden from this token or not: a hand holds
    // the positions dealt to it, and a card shown later (turned up, or the hand shown) is
    // compared with the card the deck has at the position it was dealt from.
    let drawn = 0;
    const hands = new Map(); // each hand's deal positions by its index (a split moves one)
    const unshown = new Set(); // positions dealt hidden from this token and not shown since
    const cardsOf = (index) => (hands.get(index) ?? []).map((p) => order[p]);
    const reveal = (positions) => positions.filter((p) => unshown.delete(p)).length;
    for (const s of steps) {
      const d = s.data;
      if (s.type === "CardDealt") {
        const card = d.card ?? null;
        const p = drawn++;
        hands.set(d.index, [...(hands.get(d.index) ?? []), p]);
        if (card === null) unshown.add(p);
        yield { step: s, expected: [order[p]], shown: [card] };
      } else if (s.type === "HandSplit" && d.card != null) {
        const from = hands.get(d.index) ?? [];
        const moved = from.find((p) => order[p] === d.card);
        if (moved === undefined) {
          yield { step: s, otherwise: shownOtherwise(s, [d.card], cardsOf(d.index)) };
          return;
        }
        hands.set(d.index, from.filter((p) => p !== moved));
        hands.set(d.new_index, [moved]);
        yield { step: s, later: reveal([moved]) };
      } else if (s.type === "CardTurnedUp" && d.card != null) {
        const held = hands.get(d.index) ?? [];
        const turned = held.find((p) => order[p] === d.card && unshown.has(p))
          ?? held.find((p) => order[p] === d.card);
        if (turned === undefined) {
          yield { step: s, otherwise: shownOtherwise(s, [d.card], cardsOf(d.index)) };
          return;
        }
        yield { step: s, later: reveal([turned]) };
      } else if (s.type === "CardsShown") {
        const otherwise = shownOtherwise(s, d.cards, cardsOf(d.index));
        if (otherwise) {
          yield { step: s, otherwise };
          return;
        }
        yield { step: s, later: reveal(hands.get(d.index) ?? []) };
      }
    }
    return;
  }
  if (game === "cassino") {
    let stock = order.slice();
    for (const s of steps) {
      const d = s.data;
      if (s.type === "DealerCardsDrawn") {
        // The cut for the dealer: one card each off the shuffle labelled dealer-draw-<attempt>.
        const cut = await deal(`dealer-draw-${d.attempt}`, decks.french52());
        yield { step: s, expected: cut.slice(0, d.cards.length), shown: d.cards.map((c) => c.card ?? null),
          kind: "dealer_draw" };
      } else if (s.type === "CardsDealt" || s.type === "TableDealt") {
        const n = d.cards ? d.cards.length : d.count;
        yield { step: s, expected: stock.slice(0, n), shown: d.cards || hidden(n) };
        stock = stock.slice(n);
      } else if (s.type === "CardDrawn") {
        yield { step: s, expected: stock.slice(0, 1), shown: [d.card ?? null] };
        stock = stock.slice(1);
      }
    }
    return;
  }
  // Pirate pairs: dealt round-robin off the opening pile, drawn off the pile's top, and the
  // discards reshuffled (each reshuffle with a label of its own) when the pile runs out.
  const seats = (opening.data.seats || []).map((p) => p.seat).sort((a, b) => a - b);
  let pile = order.slice();
  let discards = [];
  for (const s of steps) {
    const d = s.data;
    if (s.type === "CardsDealt") {
      const i = seats.indexOf(d.seat);
      const n = d.cards ? d.cards.length : d.count;
      const expected = Array.from({ length: n }, (_, k) => order[k * seats.length + i]);
      yield { step: s, expected, shown: d.cards || hidden(n) };
      pile = pile && pile.filter((c) => !expected.includes(c));
    } else if (s.type === "CardDrawn" || s.type === "PlayerChallenged") {
      const top = pile ? pile[0] : undefined;
      yield { step: s, expected: pile ? [top] : null, shown: [d.card ?? null] };
      if (pile) pile = pile.slice(1);
      if (s.type === "PlayerChallenged" && d.paired) discards.push(top ?? d.card ?? null);
    } else if (s.type === "PlayerEliminated") {
      discards.push(...(d.cards || [null]));
    } else if (s.type === "DiscardsReshuffled") {
      // Discards this token was not shown cannot be reshuffled here: what follows goes unchecked.
      pile = discards.includes(null) || !pile ? null : await deal(`reshuffle-${d.reshuffle}`, discards);
      yield { step: s, expected: pile, shown: d.pile || hidden(d.count ?? (pile ? pile.length : 0)),
        kind: "reshuffled" };
      discards = [];
    }
  }
}

// A hand shown (CardsShown), or a card of it turned up or split off, with other cards than
// were dealt to it: the failure, in the words of the server's check and the standalone
// verifiers; null when it shows them. `dealt` is the deck's cards at the positions the hand
// was dealt, whether this token saw those deals or not.
function shownOtherwise(step, shown, dealt) {
  if (step.type === "CardsShown") {
    if (Array.isArray(shown) && shown.length === dealt.length && shown.every((c, i) => c === dealt[i])) {
      return null;
    }
  }
  const said = Array.isArray(shown) ? shown.map(String).join(" ") : String(shown);
  return { detail: `version ${step.version} (${step.type}) shows ${said || "nothing"}, hand ${step.data.index}` +
    ` was dealt ${dealt.join(" ") || "nothing"}`, evidence: { shown, dealt } };
}

async function commitmentCheck(seeds, began, revealed, hand) {
  const evidence = { commitment: seeds.commitment, server_seed: seeds.server_seed };
  let computed;
  try {
    computed = await commitment(seeds.server_seed);
  } catch {
    return result("deck.commitment", false, "the server seed is not hex", revealed || began, evidence);
  }
  evidence.sha256_of_seed = computed;
  if (computed !== seeds.commitment) {
    return result("deck.commitment", false, "SHA-256 of the seed differs from the commitment",
      revealed || began, evidence);
  }
  // The page shows the hand's (GET /v1/hands/{id}) commitment and seed; the check uses the
  // replay's. Two answers that disagree fail it, naming both, rather than one shown beside
  // "Passed" that was never checked.
  for (const [key, step, what] of [["commitment", began, "commitment"], ["server_seed", revealed, "server seed"]]) {
    const told = hand?.[key];
    if (told !== null && told !== undefined && seeds[key] !== null && told !== seeds[key]) {
      return result("deck.commitment", false, `the hand's ${what} (${told}) differs from the replay's (${seeds[key]})`,
        step || began, { ...evidence, [`hand_${key}`]: told });
    }
  }
  return result("deck.commitment", true, "SHA-256 of the revealed seed is the commitment recorded before the deal",
    null, evidence);
}

function orderCheck(game, opening, order) {
  const recorded = opening.data[ORDER_KEY[game]];
  if (!Array.isArray(recorded)) {
    return result("deck.order", null, "the recorded order is shown to auditors only; the cards you were" +
      " shown are compared with the order recomputed here (deck.dealt)", null, { cards: order.length });
  }
  const n = Math.max(recorded.length, order.length);
  for (let i = 0; i < n; i++) {
    if (recorded[i] !== order[i]) {
      return result("deck.order", false, `the recorded order differs at position ${i}`, opening,
        { position: i, recorded: recorded.slice(i, i + 1), recomputed: order.slice(i, i + 1) });
    }
  }
  return result("deck.order", true, `the recorded order of ${order.length} cards is the one the seeds give`,
    null, { cards: order.length, recomputed: order });
}

// What a card compared was dealt for, in the words of the server's check
// (service/verification/deck_check.py), so that both say the same of one deck.
const COUNTED = { dealer_draw: "to choose the dealer", deck: "from the deck", reshuffled: "in reshuffled piles" };

// "54 cards dealt: 2 to choose the dealer, 52 from the deck" (the parts only when more than one
// kind was counted), as the server's `summary` says it.
export function countedSummary(counted) {
  const total = Object.values(counted).reduce((a, b) => a + b, 0);
  const parts = Object.entries(counted).filter(([, n]) => n).map(([k, n]) => `${n} ${COUNTED[k]}`);
  return `${total} ${total === 1 ? "card" : "cards"} dealt${parts.length > 1 ? `: ${parts.join(", ")}` : ""}`;
}

async function dealtCheck(game, order, opening, steps, seeds) {
  let checked = 0;
  let unseen = 0;
  const counted = { dealer_draw: 0, deck: 0, reshuffled: 0 };
  for await (const { step, expected, shown, otherwise, later, kind = "deck" } of dealings(game, order, opening, steps, seeds)) {
    if (otherwise) return result("deck.dealt", false, otherwise.detail, step, otherwise.evidence);
    if (later !== undefined) {
      // Cards dealt hidden from this token, shown since and found where the deck dealt them.
      checked += later;
      unseen -= later;
      continue;
    }
    counted[kind] += shown.length;
    for (let k = 0; k < shown.length; k++) {
      if (shown[k] === null || !expected) {
        unseen += 1;
      } else if (shown[k] !== expected[k]) {
        return result("deck.dealt", false, `a card dealt is not the deck's next card (step ${step.step},` +
          ` ${step.type}: ${shown[k]} where the deck has ${expected[k]})`, step,
        { dealt: shown, expected });
      } else {
        checked += 1;
      }
    }
    if (expected && expected.length !== shown.length) {
      return result("deck.dealt", false, `step ${step.step} (${step.type}) shows ${shown.length} cards` +
        ` where the deck gives ${expected.length}`, step, { dealt: shown, expected });
    }
  }
  for (const k of Object.keys(counted)) if (!counted[k]) delete counted[k];
  const summary = countedSummary(counted);
  const detail = unseen ? `${summary}; ${checked} compared, each the deck's next card, ${unseen} hidden from you not compared`
    : `${summary}, each the deck's next card`;
  return result("deck.dealt", true, detail, null,
    { cards_checked: checked, cards_hidden: unseen, counted, summary });
}

// The three checks for `hand` (GET /v1/hands/{id}, may be null) and `replay`
// (GET /v1/hands/{id}/replay): {seeds, order, checks, passed}; a check's `passed` is null when
// this token cannot make it, `passed` overall false when any check failed.
export async function checkHand(hand, replay) {
  const seeds = seedsOf(hand, replay);
  const began = replay.steps.find((s) => s.type === "HandBegan");
  const revealed = replay.steps.find((s) => s.type === "SeedRevealed");
  const game = replay.steps.filter((s) => s.kind === "game");
  const opening = game[0];
  const names = ["deck.commitment", "deck.order", "deck.dealt"];
  const none = (detail) => ({ seeds, order: null, passed: null,
    checks: names.map((n) => result(n, null, detail)) });
  if (!opening) return none("the hand has no opening event");
  if (!seeds.server_seed) {
    return none(seeds.revealed
      ? "the check needs an auditor's token: this hand's server seed is shown to auditors only"
      : "the server seed is revealed once the hand is settled");
  }
  const checks = [await commitmentCheck(seeds, began, revealed, hand)];
  let order = null;
  let first = null;
  try {
    const cards = composition(replay.game, opening);
    first = await shuffled(cards, seeds.server_seed, seeds.player_seeds.slice(0, seeds.joined));
    // Bets that carried seeds shuffled the deck again before the deal: the cards come off it.
    order = seeds.player_seeds.length > seeds.joined
      ? await shuffled(cards, seeds.server_seed, seeds.player_seeds) : first;
  } catch {
    checks.push(result("deck.order", false, "the seeds cannot be read", opening),
      result("deck.dealt", false, "the seeds cannot be read", opening));
  }
  if (order) {
    const again = game.find((s) => s.type === "DeckShuffled");
    const opened = orderCheck(replay.game, opening, first);
    checks.push(order === first || opened.passed === false ? opened
      : again ? orderCheck(replay.game, again, order)
        : result("deck.order", false, "bets carried seeds but the deck was not shuffled again with them", opening));
    try {
      checks.push(await dealtCheck(replay.game, order, opening, game.slice(1), seeds));
    } catch (e) {
      checks.push(result("deck.dealt", false, `the events cannot be read (${e.name})`));
    }
  }
  // Passed when nothing failed and something could be checked (a player's token cannot compare
  // the recorded order or the cards hidden from him).
  const passed = checks.some((c) => c.passed === false) ? false : checks.some((c) => c.passed) ? true : null;
  return { seeds, order, passed, checks };
}
