// What a settled hand had to pay, read game by game from the engine's own events, and the money of
// the hand walked account by account; banco_verifier/settlement.py is the same reading.
//
// The engine decides a hand's settlement in its own accounts (seat:<n>, escrow, pot): the 7½
// family (Sette e mezzo, Siete y media, Casino pirate) in HandEnded.postings; Pirate pairs' winner
// takes the pot GameWon names; Cassino's winning side splits the pot (the odd unit to its lowest
// seat) once RoundScored names a winner, and a round no side won settles nothing. Banco's ledger
// names those accounts seat:<table>:<player> (the player HandBegan seats there),
// escrow:<table>:<hand> and pot:<table>:pot.

const SEVEN_HALF_FAMILY = ["sette-e-mezzo", "siete-y-media", "casino-pirate"];
// The event of each game that decides what its settlement pays.
export const DECIDED_BY = { "sette-e-mezzo": "HandEnded", "siete-y-media": "HandEnded", "casino-pirate": "HandEnded",
  "pirate-pairs": "GameWon", cassino: "RoundScored" };
const SEAT = /^seat:([0-9]{1,9})$/;

// The engine's events decide no settlement that can be paid.
export class Wrong extends Error {}
// The event that decides the settlement (its name) is withheld from this viewer.
export class Withheld extends Error {}

// A whole number as JSON gives it; null for anything else.
export const whole = (v) => (typeof v === "number" && Number.isInteger(v) ? v : null);

function last(events, type) {
  const found = events.filter((e) => e.type === type);
  if (!found.length) return null;
  if (found.at(-1).data == null) throw new Withheld(type);
  return found.at(-1).data;
}

// The pot as the engine holds it: what the round opened with, and the stakes paid in.
function cassinoPot(events, describe) {
  let pot = 0;
  for (const e of events) {
    if (e.type !== "RoundStarted" && e.type !== "StakesPaid") continue;
    if (e.data == null) throw new Withheld(e.type);
    const amount = whole(e.data.pot);
    if (amount === null || amount < 0) throw new Wrong(`version ${e.version} (${e.type}) names a pot of ${describe(e.data.pot ?? null)}, not a whole amount`);
    pot = e.type === "RoundStarted" ? amount : pot + amount;
  }
  return pot;
}

// The settlement the engine decided, [from, to, amount, reason] in its accounts; null for a game
// whose settlement is not known here. Throws Withheld, or Wrong.
export function decided(game, events, describe) {
  if (!Object.hasOwn(DECIDED_BY, game)) return null;
  const data = last(events, DECIDED_BY[game]);
  if (SEVEN_HALF_FAMILY.includes(game)) {
    if (data == null) throw new Wrong("the hand is settled, but no HandEnded decided what it pays");
    const plan = data.postings;
    if (!Array.isArray(plan) || !plan.every((p) => Array.isArray(p) && p.length === 4)) {
      throw new Wrong("HandEnded's postings are not a list of [from, to, amount, reason]");
    }
    return plan.map((p) => [...p]);
  }
  if (game === "pirate-pairs") {
    if (data == null) throw new Wrong("the hand is settled, but no GameWon names its winner");
    if (whole(data.seat) === null) throw new Wrong(`GameWon names no seat: ${describe(data.seat ?? null)}`);
    return data.pot !== 0 ? [["pot", `seat:${data.seat}`, data.pot, "pot_won"]] : [];
  }
  if (data == null || data.winner == null) return []; // Cassino: no round scored, or no side won yet
  const seats = data.winning_seats;
  if (!Array.isArray(seats) || !seats.length || !seats.every((s) => whole(s) !== null)) {
    throw new Wrong("RoundScored names a winner but no winning seats");
  }
  const pot = cassinoPot(events, describe), share = Math.floor(pot / seats.length), odd = pot % seats.length;
  return [...seats].sort((a, b) => a - b).map((s, i) => ["pot", `seat:${s}`, share + (i === 0 ? odd : 0), "pot_won"])
    .filter((p) => p[2] > 0);
}

// The ledger's name of an engine's account at this hand.
export function ledgerAccount(name, table, hand, players, describe) {
  if (name === "escrow") return `escrow:${table}:${hand}`;
  if (name === "pot") return `pot:${table}:pot`;
  const found = typeof name === "string" ? SEAT.exec(name) : null;
  if (found === null) throw new Wrong(`the engine names an account ${describe(name ?? null)}, none of the game's`);
  const seat = Number(found[1]);
  if (!players.has(seat)) throw new Wrong(`the engine pays ${name}, where HandBegan seats nobody`);
  return `seat:${table}:${players.get(seat)}`;
}

// What each account the hand's money is walked in held at the deal, where the bundle says so: the
// hand's escrow nothing; Pirate pairs' pot nothing (each game stands alone), Cassino's what its
// round opened with; each seat of the 7½ family what the opening event gave it.
export function opening(game, events, table, hand, players, describe) {
  const held = new Map([[`escrow:${table}:${hand}`, 0]]);
  const first = events[0];
  if (game === "pirate-pairs") {
    held.set(`pot:${table}:pot`, 0);
  } else if (game === "cassino" && first && first.type === "RoundStarted" && first.data != null) {
    const pot = whole(first.data.pot);
    if (pot === null || pot < 0) throw new Wrong(`RoundStarted names a pot of ${describe(first.data.pot ?? null)}, not a whole amount`);
    held.set(`pot:${table}:pot`, pot);
  } else if (SEVEN_HALF_FAMILY.includes(game) && first && first.type === "HandStarted" && first.data != null) {
    for (const s of first.data.seats) {
      const seat = whole(s.seat), balance = whole(s.balance);
      if (seat === null || balance === null || balance < 0 || !players.has(seat)) {
        throw new Wrong(`HandStarted gives seat ${describe(s.seat ?? null)} a balance of ${describe(s.balance ?? null)}`);
      }
      held.set(`seat:${table}:${players.get(seat)}`, balance);
    }
  }
  return held;
}

// The engine's events that move money during the hand, game by game: each one's postings become
// the TreasurePosted events its command appends after its own events (settlement.py alike).
const POSTS = { ...Object.fromEntries(SEVEN_HALF_FAMILY.map((g) => [g, ["BetPlaced", "HandSplit", "StakeLost"]])),
  cassino: ["StakesPaid"], "pirate-pairs": ["HandOpened"] };
const seatOf = (v, describe) => `seat:${whole(v) === null ? describe(v ?? null) : whole(v)}`;

// What an engine event of the hand posts, [from, to, amount, reason] in the engine's accounts (as
// games/*/events.py give it); null for an event that posts nothing. `data` is the event's, or what
// a withheld one shows; `seats` the seats HandBegan lists.
export function posts(game, type, data, seats, describe) {
  if (!(POSTS[game] ?? []).includes(type)) return null;
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new Wrong(`${type} shows nothing of what it posts`);
  if (type === "BetPlaced" || type === "HandSplit") {
    return [[seatOf(data.seat, describe), "escrow", data.amount ?? null, type === "BetPlaced" ? "bet" : "split"]];
  }
  if (type === "StakeLost") return [["escrow", seatOf(data.banker, describe), data.amount ?? null, "bust"]];
  const stake = data.stake ?? null;
  // Every player pays the stake into the pot.
  if (type === "StakesPaid") return [...seats].sort((a, b) => a - b).map((s) => [`seat:${s}`, "pot", stake, "stake"]);
  // HandOpened: every seat it lists pays the stake, if there is one.
  const listed = data.seats;
  if (!Array.isArray(listed) || !listed.every((s) => s !== null && typeof s === "object" && !Array.isArray(s))) {
    throw new Wrong("HandOpened lists no seats");
  }
  const ordered = listed.map((s) => whole(s.seat ?? null)).filter((n) => n !== null).sort((a, b) => a - b);
  return stake === 0 ? [] : ordered.map((s) => [`seat:${s}`, "pot", stake, "stake"]);
}
