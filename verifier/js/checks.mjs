// Every check of a Banco evidence bundle (formats banco-evidence/1 and /2), with Node's standard library
// only: an independent reading of the format, sharing no code with Banco or its Python verifier.
import { createHash, createHmac, createPublicKey, verify as edVerify } from "node:crypto";
import { Mismatch, walk } from "./dealt.mjs";
import { Missing, within } from "./members.mjs";
import * as settlement from "./settlement.mjs";

export const CHECKS = ["signature", "attestation", "inclusion", "chain", "contents", "commitment", "deck", "replay", "settlement"];
const FORMATS = ["banco-evidence/1", "banco-evidence/2"];
const ATTESTED = "banco-evidence/2";
const SEVEN_HALF_GAMES = ["sette-e-mezzo", "siete-y-media"];
// What each game's rules allow a table (RULES.md, and Banco's games/*/options.py): the players a
// hand seats and, for Casino pirate, the deck's counts (each a table option: default, lowest,
// highest). No number read from a bundle sizes what is built or walked until checked against them.
const PLAYERS = { "sette-e-mezzo": [2, 12], "siete-y-media": [2, 8], "casino-pirate": [2, 8], "pirate-pairs": [2, 8], cassino: [2, 4] };
const DECK_OPTIONS = { "casino-pirate": { gems: [4, 1, 8], gold_coins: [8, 0, 16], pebbles: [4, 0, 16], skeletons: [2, 0, 8] } };
// How deep a bundle, or a stored text in it, may nest: Banco's go 8 levels deep. Deeper is no
// bundle, refused alike by both verifiers (and read by no recursion that could overflow).
export const MAX_DEPTH = 64;
// The most events a log holds here: a count both languages read exactly (2 ** 53 - 1).
const MAX_EVENTS = Number.MAX_SAFE_INTEGER;

class Failed extends Error {}
class Skipped extends Error {}

const sha256 = (...parts) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
};
const utf8 = (s) => Buffer.from(s, "utf8");
const hex = (s) => Buffer.from(s, "hex");
// Whether `value` nests more than MAX_DEPTH levels of arrays and objects (walked without recursion).
export function tooDeep(value) {
  const stack = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop();
    if (item !== null && typeof item === "object") {
      if (depth === MAX_DEPTH) return true;
      for (const v of Object.values(item)) stack.push([v, depth + 1]);
    }
  }
  return false;
}

// JSON both verifiers refuse alike, said in the same words by both.
export class NotJson extends SyntaxError {}
// An integer past 2 ** 53 - 1 is read here as the nearest double, and exactly by Python: a bundle
// could pass one verifier and fail the other. Both refuse it.
export const INEXACT = "an integer beyond +/-(2^53 - 1), which not every reader reads exactly";

// Whether `value` holds a number `bad` finds.
function holds(value, bad) {
  const stack = [value];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === "number" && bad(item)) return true;
    if (item !== null && typeof item === "object") for (const v of Object.values(item)) stack.push(v);
  }
  return false;
}
// A number JSON.parse read as Infinity (one past a double's range), or a whole one beyond
// ±(2 ** 53 - 1).
const tooLarge = (value) => holds(value, (n) => !Number.isFinite(n));
export const inexact = (value) => holds(value, (n) => Number.isInteger(n) && !Number.isSafeInteger(n));

// JSON as both verifiers read it: without a number past a double's range (JSON.parse knows no
// NaN or Infinity) or an integer beyond ±(2 ** 53 - 1), nested at most MAX_DEPTH levels; a
// SyntaxError otherwise (NotJson, in both verifiers' words, for what JSON itself allows).
export function readJson(text) {
  const value = JSON.parse(text);
  if (tooDeep(value)) throw new NotJson(`nested deeper than ${MAX_DEPTH} levels`);
  if (tooLarge(value)) throw new NotJson("a number beyond what a double holds");
  if (inexact(value)) throw new NotJson(INEXACT);
  return value;
}

// A whole number as JSON gives it; null for anything else.
const whole = (v) => (typeof v === "number" && Number.isInteger(v) ? v : null);
const parsed = (e) => (e.canonical == null ? null : readJson(e.canonical));
// JSON values compared by content, object keys in any order (Python's == on dicts).
const same = (a, b) => {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
};

// The bundle's events: a list of at least one, each an object. Any other is no hand's log, failed
// alike by every check that reads it (and by both verifiers in the same words).
function events(bundle) {
  const evs = bundle.events;
  if (!Array.isArray(evs) || !evs.every((e) => e !== null && typeof e === "object" && !Array.isArray(e))) {
    throw new Failed("the bundle's events are not a list of events");
  }
  if (!evs.length) throw new Failed("the bundle holds no events");
  return evs;
}

function gameEvents(bundle) {
  return events(bundle).filter((e) => e.type.startsWith("game.")).map((e) => {
    const body = parsed(e);
    return { type: e.type.slice(5), data: body == null ? null : body.data.data, version: e.version };
  });
}

// The seeds the hand's bets carried, in the order placed (Sette e mezzo): after the join seeds,
// they shuffle the deck the cards come off (docs/fair-decks.md).
function betSeeds(games) {
  return games.filter((g) => g.type === "BetPlaced" && g.data != null && g.data.seed).map((g) => String(g.data.seed));
}

function stored(bundle, type) {
  const e = events(bundle).find((x) => x.type === type && x.canonical != null);
  return e ? parsed(e).data : null;
}

// --- RFC 9162 Merkle trees ---------------------------------------------------------------------
export function leafHash(e) {
  const head = `${e.position}\n${e.stream_id}\n${e.version}\n${e.hash}\n`;
  return sha256(Buffer.from([0]), utf8(head), utf8(e.canonical));
}
const node = (l, r) => sha256(Buffer.from([1]), l, r);

export function included(leaf, index, size, path, root) {
  if (index < 0 || index >= size) return false;
  // BigInt: tree sizes are integers of any size, shifts stay exact.
  let fn = BigInt(index), sn = BigInt(size - 1), r = leaf;
  for (const p of path) {
    if (sn === 0n) return false;
    if (fn % 2n === 1n || fn === sn) {
      r = node(p, r);
      if (fn % 2n === 0n) while (fn % 2n === 0n && fn !== 0n) { fn >>= 1n; sn >>= 1n; }
    } else {
      r = node(r, p);
    }
    fn >>= 1n; sn >>= 1n;
  }
  return sn === 0n && r.equals(root);
}

// --- decks from seeds (docs/fair-decks.md) -----------------------------------------------------
const range = (a, b) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
// The unshuffled deck of `game` (its options for Casino pirate, each count checked in the range
// the rules allow: DECK_OPTIONS); null for a game unknown here.
export function composition(game, options) {
  const fr = ["s", "h", "d", "c"], es = ["o", "c", "e", "b"];
  const deck = (ranks, suits) => suits.flatMap((s) => ranks.map((r) => r + s));
  if (game === "sette-e-mezzo") return deck(["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"], fr);
  if (game === "siete-y-media") return deck(["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"], es);
  if (game === "casino-pirate") {
    return [...range(1, 7).flatMap((v) => range(1, Number(options.gems)).map((i) => `gem${v}.${i}`)),
      ...range(1, Number(options.gold_coins)).map((i) => `gold.${i}`),
      ...range(1, Number(options.pebbles)).map((i) => `pebble.${i}`),
      ...range(1, Number(options.skeletons)).map((i) => `skeleton.${i}`)];
  }
  if (game === "pirate-pairs") return range(1, 10).flatMap((v) => range(1, v).map((i) => `${v}.${i}`));
  if (game === "cassino") return deck(["A", ...range(2, 10).map(String), "J", "Q", "K"], fr);
  return null;
}

export function shuffle(cards, serverSeed, playerSeeds, label = "deck") {
  const h = createHash("sha256").update(hex(serverSeed));
  for (const s of playerSeeds) {
    const raw = utf8(s), len = Buffer.alloc(4);
    len.writeUInt32BE(raw.length);
    h.update(len).update(raw);
  }
  const key = h.digest();
  let counter = 0n, words = [];
  const next = () => {
    if (words.length === 0) {
      const c = Buffer.alloc(8);
      c.writeBigUInt64BE(counter++);
      const block = createHmac("sha256", key).update(utf8(label)).update(c).digest();
      words = range(0, 7).map((i) => block.readUInt32BE(4 * i));
    }
    return words.shift();
  };
  const out = [...cards];
  for (let i = out.length - 1; i > 0; i--) {
    const n = i + 1, limit = 2 ** 32 - (2 ** 32 % n);
    let x = next();
    while (x >= limit) x = next();
    const j = x % n;
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// --- the 7½ family (see banco_verifier/sevenhalf.py for the rules as read) ---------------------
const BANK = -1, SEVEN_HALF = 15, DECK_SIZE = 40; // both games' deck: four suits of ten
function value(game, card) {
  const rank = card.slice(0, -1);
  if (game === "sette-e-mezzo") return ["J", "Q", "K"].includes(rank) ? 1 : rank === "A" ? 2 : 2 * Number(rank);
  return ["10", "11", "12"].includes(rank) ? 1 : 2 * Number(rank);
}

export function replaySevenHalf(game, events) {
  const dealt = events.filter((e) => e.type === "CardDealt").length;
  // The hands are walked card by card: no more than the deck holds.
  if (dealt > DECK_SIZE) return [`${dealt} cards dealt, the deck holds ${DECK_SIZE}`];
  const cards = new Map(), stakes = new Map(), owner = new Map(), balances = new Map(), turned = new Set();
  let options = {}, banker = null, ended = null;
  for (const { type, data: d } of events) {
    if (type === "HandStarted") {
      banker = d.banker; options = d.options;
      for (const s of d.seats) balances.set(s.seat, s.balance);
    } else if (type === "BetPlaced") {
      stakes.set(d.index, d.amount); owner.set(d.index, d.seat);
      balances.set(d.seat, balances.get(d.seat) - d.amount);
    } else if (type === "HandSplit") {
      const from = cards.get(d.index);
      from.splice(from.indexOf(d.card), 1);
      cards.set(d.new_index, [d.card]);
      stakes.set(d.new_index, d.amount); owner.set(d.new_index, d.seat);
      balances.set(d.seat, balances.get(d.seat) - d.amount);
    } else if (type === "CardDealt") {
      if (!cards.has(d.index)) cards.set(d.index, []);
      cards.get(d.index).push(d.card);
      if (d.index === BANK && !d.face_up) turned.delete(BANK);
    } else if (type === "CardTurnedUp" && d.index === BANK) {
      turned.add(BANK);
    } else if (type === "StakeLost") {
      balances.set(d.banker, balances.get(d.banker) + d.amount);
    } else if (type === "HandEnded") {
      ended = d;
    }
  }
  if (ended == null || banker == null) return ["the hand has not ended"];
  const total = (i) => (cards.get(i) || []).reduce((t, c) => t + value(game, c), 0);
  const bank = total(BANK), both = Number(options.both_seven_half_pays ?? 4);
  const wrong = [], claims = [], recorded = new Map(ended.results.map((r) => [r.index, r]));
  for (const i of [...stakes.keys()].sort((a, b) => a - b)) {
    const s = stakes.get(i), t = total(i);
    let net, outcome;
    if (t > SEVEN_HALF) { net = -s; outcome = "bust"; }
    else {
      if (game === "sette-e-mezzo") net = bank > SEVEN_HALF || t > bank ? s : -s;
      else if (bank > SEVEN_HALF) net = t === SEVEN_HALF ? 2 * s : s;
      else if (bank === SEVEN_HALF) net = -(t === SEVEN_HALF ? both * s : 2 * s);
      else if (t === SEVEN_HALF) net = 2 * s;
      else net = t > bank ? s : -s;
      outcome = net > 0 ? "won" : "lost";
    }
    if (outcome !== "bust") claims.push([owner.get(i), s, net]);
    const want = { seat: owner.get(i), index: i, stake: s, total: t, outcome, net };
    const row = recorded.get(i) || {};
    const got = Object.fromEntries(Object.keys(want).map((k) => [k, row[k] ?? null]));
    if (!same(got, want)) wrong.push(`hand ${i}: recorded ${JSON.stringify(got)}, re-played ${JSON.stringify(want)}`);
  }
  const bankRow = recorded.get(BANK) || {};
  const bankTotal = bankRow.total ?? null;
  if ((bankTotal !== null && bankTotal !== bank) || (bankTotal === null && turned.has(BANK))) {
    wrong.push(`the bank: recorded total ${bankTotal}, re-played ${bank}`);
  }
  const planned = plan(banker, claims, balances);
  if (!same(ended.postings, planned)) {
    wrong.push(`payouts: recorded ${JSON.stringify(ended.postings)}, re-played ${JSON.stringify(planned)}`);
  }
  return wrong;
}

function plan(banker, claims, balances) {
  const funds = new Map(balances), out = [];
  const add = (seat, n) => funds.set(seat, (funds.get(seat) ?? 0) + n);
  const pay = (payer, payee, owed, reason) => {
    const paid = Math.min(owed, funds.get(payer) ?? 0);
    if (paid > 0) { out.push([`seat:${payer}`, `seat:${payee}`, paid, reason]); add(payer, -paid); add(payee, paid); }
  };
  for (const [seat, stake, net] of claims) {
    if (net < 0) {
      out.push(["escrow", `seat:${banker}`, stake, "lost"]); add(banker, stake);
      if (-net > stake) pay(seat, banker, -net - stake, "lost");
    }
  }
  for (const [seat, stake, net] of claims) {
    if (net > 0) { out.push(["escrow", `seat:${seat}`, stake, "returned"]); add(seat, stake); pay(banker, seat, net, "won"); }
  }
  return out;
}

// --- the checks ---------------------------------------------------------------------------------
function checkSignature(bundle, key) {
  const signed = bundle.checkpoint;
  const embedded = Buffer.from(signed.public_key, "base64");
  if (key && !key.equals(embedded)) throw new Failed("the bundle names another key than the house's");
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: (key || embedded).toString("base64url") }, format: "jwk" });
  const text = signed.statement, signature = signed.signature; // a missing one named, not a bad signature
  let ok = false;
  try { ok = edVerify(null, utf8(text), publicKey, Buffer.from(signature, "base64")); } catch { ok = false; }
  if (!ok) throw new Failed("the checkpoint's signature does not verify");
  const statement = readJson(signed.statement);
  if (statement.format !== "banco-checkpoint/1") throw new Failed("the signed text is not a banco-checkpoint/1 statement");
  const pinned = key ? "" : " (key not pinned: compare it with the house's published key)";
  return `checkpoint ${statement.id} signed by ${sha256(embedded).toString("hex").slice(0, 16)}${pinned}`;
}

// Canonical JSON as Banco writes it: sorted keys (by code point), no spaces, UTF-8, numbers as
// JavaScript prints them (RFC 8785), which Banco's writer follows for numbers that are not
// integers.
export function canonicalJson(v) {
  if (v === null || typeof v === "boolean" || typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new TypeError(`${v} has no JSON form`);
    return String(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const byCodePoint = (a, b) => {
    const x = [...a].map((c) => c.codePointAt(0)), y = [...b].map((c) => c.codePointAt(0));
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  };
  return `{${Object.keys(v).sort(byCodePoint).map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
}

// What the house signed of a bundle: its canonical JSON without attestation.signature.
export function attestationText(bundle) {
  const { signature, ...attestation } = bundle.attestation;
  return utf8(canonicalJson({ ...bundle, attestation }));
}

// What the bundle carries that only a banco-evidence/2 bundle has: its attestation, the version
// an inclusion proof names.
function attestedOnly(bundle) {
  const found = Object.hasOwn(bundle, "attestation") ? ["an attestation"] : [];
  const inclusion = Object.hasOwn(bundle, "inclusion") ? bundle.inclusion : undefined, isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (isObject(inclusion) && Object.values(inclusion).some((p) => isObject(p) && Object.hasOwn(p, "version"))) {
    found.push("inclusion proofs naming a version");
  }
  return found;
}

// The house signed the whole bundle: the viewer, what withheld events show, the summary fields,
// each event's time and place, none of which a chain link covers. A bundle of the former format
// (made before attestation) is checked only when allowUnattested.
function checkAttestation(bundle, key, allowUnattested = false) {
  if (bundle.format !== ATTESTED) {
    const carried = attestedOnly(bundle);
    if (carried.length) {
      throw new Failed(`a ${bundle.format} bundle with ${carried.join(" and ")}, which only ${ATTESTED} has: an attested bundle relabelled`);
    }
    if (!allowUnattested) {
      throw new Failed(`a ${bundle.format} bundle, not attested: its viewer, shown data and summary fields are the bundle's word alone (--allow-unattested checks one made before attestation)`);
    }
    throw new Skipped(`a ${bundle.format} bundle is not attested: its viewer, shown data and summary fields are the bundle's word alone`);
  }
  const attestation = Object.hasOwn(bundle, "attestation") ? bundle.attestation : undefined;
  if (attestation === null || typeof attestation !== "object" || Array.isArray(attestation)) throw new Failed("the bundle carries no attestation");
  if (attestation.algorithm !== "Ed25519") throw new Failed(`attested with ${JSON.stringify(attestation.algorithm)}, not Ed25519`);
  const raw = key || Buffer.from(bundle.checkpoint.public_key, "base64");
  if (attestation.key_id !== sha256(raw).toString("hex").slice(0, 16)) throw new Failed("attested by another key than the house's");
  const publicKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  const signature = attestation.signature; // a missing one named, not a bad signature
  let ok = false;
  try { ok = edVerify(null, attestationText(bundle), publicKey, Buffer.from(signature, "base64")); } catch { ok = false; }
  if (!ok) throw new Failed("the house's signature over the bundle does not verify: it was edited");
  const pinned = key ? "" : " (key not pinned: compare it with the house's published key)";
  return `the whole bundle signed by ${attestation.key_id}${pinned}`;
}

// The event inclusion.last_event proves: the one of its version, which every event after must
// follow withheld; without a version (banco-evidence/1), the last event.
function proven(bundle) {
  const evs = events(bundle), proof = bundle.inclusion.last_event;
  if (!Object.hasOwn(proof, "version")) return evs.at(-1);
  const found = evs.flatMap((e, n) => (e.version === proof.version ? [n] : []));
  if (found.length !== 1) throw new Failed(`last_event: the bundle holds no one event of version ${proof.version}`);
  const after = evs.slice(found[0] + 1).filter((e) => e.canonical != null).map((e) => e.version);
  if (after.length) {
    throw new Failed(`last_event: version ${after[0]} is given whole after the proved version ${proof.version}: the last event given whole is the one to prove`);
  }
  return evs[found[0]];
}

function checkInclusion(bundle) {
  const statement = readJson(bundle.checkpoint.statement), root = hex(statement.root);
  for (const [name, event] of [["last_event", proven(bundle)], ["table_created", bundle.table_created]]) {
    const proof = bundle.inclusion[name];
    if (event.canonical == null) throw new Failed(`${name}: its stored text is withheld, nothing to prove`);
    if (proof.tree_size !== statement.events) throw new Failed(`${name}: proved to a tree of ${proof.tree_size}, the checkpoint has ${statement.events}`);
    const size = whole(proof.tree_size), index = whole(proof.leaf_index);
    if (size === null || !(size >= 1 && size <= MAX_EVENTS)) throw new Failed(`${name}: tree_size ${canonicalJson(proof.tree_size)} is not a count of events`);
    if (index === null || !(index >= 0 && index < size)) {
      throw new Failed(`${name}: leaf_index ${canonicalJson(proof.leaf_index)} is not a place in a tree of ${size} events`);
    }
    // RFC 9162 §2.1.3: a leaf's audit path has a hash a level, at most ceil(log2(size)).
    const levels = size === 1 ? 0 : (size - 1).toString(2).length;
    if (!Array.isArray(proof.path) || proof.path.length > levels) {
      throw new Failed(`${name}: its path is not a list of at most ${levels} hashes, as a proof in a tree of ${size} events is`);
    }
    if (!included(leafHash(event), index, size, proof.path.map(hex), root)) {
      throw new Failed(`${name}: the inclusion proof does not lead to the signed root`);
    }
  }
  const proved = proven(bundle).version, last = events(bundle).at(-1).version;
  const tail = proved === last ? "" : ` (versions after ${proved} withheld, held by their hashes)`;
  return `both proofs (version ${proved} and TableCreated) lead to root ${statement.root.slice(0, 16)}... of ${statement.events} events${tail}`;
}

function checkChain(bundle) {
  const chain = bundle.chain, evs = events(bundle), created = bundle.table_created, body = parsed(created);
  if (body == null || created.version !== 1 || body.type !== "TableCreated" || created.stream_id !== chain.stream_id
      || sha256(utf8(created.canonical)).toString("hex") !== created.hash) {
    throw new Failed("TableCreated is not the first link of the stream");
  }
  let head = hex(chain.previous_hash), withheld = 0;
  evs.forEach((e, n) => {
    if (e.version !== chain.first_version + n || e.stream_id !== chain.stream_id) {
      throw new Failed(`event ${n} is not version ${chain.first_version + n} of the stream`);
    }
    if (e.canonical == null) {
      if (bundle.viewer.kind === "auditor") throw new Failed(`version ${e.version} is withheld from an auditor, who may see all`);
      withheld++; head = hex(e.hash); return;
    }
    const b = parsed(e);
    if (b.stream_id !== e.stream_id || b.type !== e.type) throw new Failed(`version ${e.version}: its stored text names another stream or type`);
    head = sha256(head, utf8(e.canonical));
    if (head.toString("hex") !== e.hash) throw new Failed(`version ${e.version}: the hash does not follow from the link before`);
  });
  const shown = evs.length - withheld;
  return `${shown} links recomputed` + (withheld ? `, ${withheld} withheld from this viewer` : "");
}

function checkContents(bundle) {
  const created = parsed(bundle.table_created).data, began = stored(bundle, "HandBegan");
  if (began == null || began.hand_id !== bundle.hand_id) throw new Failed("the first event is not the HandBegan of the hand");
  for (const key of ["game", "rules_version", "options", "table_id"]) {
    const recorded = created[key] ?? (key === "rules_version" ? 1 : null);
    if (!same(recorded, bundle[key])) throw new Failed(`${key} differs from TableCreated`);
  }
  for (const e of events(bundle)) {
    const b = parsed(e);
    if (b != null && e.type.startsWith("game.") && b.data.hand !== bundle.hand_id) throw new Failed(`version ${e.version} belongs to another hand`);
  }
  const posted = events(bundle).filter((e) => e.type === "TreasurePosted");
  if (posted.length !== bundle.postings.length
      || posted.some((e, i) => e.canonical != null && !same(parsed(e).data, bundle.postings[i]))) {
    throw new Failed("the postings differ from the TreasurePosted events");
  }
  const seeds = bundle.seeds;
  if (seeds.commitment !== began.commitment
      || !same(seeds.player_seeds, [...began.seats.map((s) => s.seed || ""), ...betSeeds(gameEvents(bundle))])) {
    throw new Failed("the seeds differ from HandBegan");
  }
  for (const e of posted) {
    // Postings are no one's secret, nor is a move that posts: a withheld one's amount would be
    // the bundle's word alone, nothing signed saying it.
    if (e.canonical == null) throw new Failed(`version ${e.version}: a posting is withheld, which Banco never does`);
  }
  return `${posted.length} postings, seeds and options as the events record them`;
}

const serverSeed = (bundle) => stored(bundle, "SeedRevealed")?.server_seed ?? null;

// Why no server seed is read: the hand is not settled yet, or its seed is kept from this viewer
// (a conceded Casino pirate hand's is an auditor's alone).
const unrevealed = (bundle) => new Skipped(events(bundle).some((e) => e.type === "SeedRevealed")
  ? "the server seed is not revealed to this viewer"
  : "the server seed is not revealed yet: the hand is not settled");

function checkCommitment(bundle) {
  const seed = serverSeed(bundle);
  if (seed == null) throw unrevealed(bundle);
  if (bundle.seeds.server_seed !== seed) throw new Failed("the bundle's server seed is not the revealed one");
  if (!/^([0-9a-fA-F]{2})*$/.test(seed)) throw new Failed("the server seed is not hex");
  const computed = sha256(hex(seed)).toString("hex");
  if (computed !== stored(bundle, "HandBegan").commitment) throw new Failed("SHA-256 of the revealed seed is not the commitment");
  return `SHA-256(seed) = ${computed.slice(0, 16)}...`;
}

// The options that size the deck of `game`, each a whole number in the range its rules allow
// (the game's default when absent): a count from the bundle builds nothing unchecked.
function deckOptions(game, options) {
  const counts = DECK_OPTIONS[game] ?? {};
  if (Object.keys(counts).length && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new Failed("options: not an object");
  }
  const out = {};
  for (const [name, [byDefault, low, high]] of Object.entries(counts)) {
    const value = Object.hasOwn(options, name) ? options[name] : byDefault, n = whole(value);
    if (n === null || !(n >= low && n <= high)) throw new Failed(`options.${name} ${canonicalJson(value)} is outside the game's range ${low}-${high}`);
    out[name] = n;
  }
  return out;
}

// `seats` (HandBegan's, or the opening event's when shown) as many as the game seats.
function seated(game, where, seats) {
  if (seats == null && where !== "HandBegan") return;
  const [low, high] = PLAYERS[game];
  if (!Array.isArray(seats) || !(seats.length >= low && seats.length <= high)) {
    const count = Array.isArray(seats) ? seats.length : canonicalJson(seats ?? null);
    throw new Failed(`${where} seats ${count} players, the game seats ${low}-${high}`);
  }
}

function checkDeck(bundle) {
  const seed = serverSeed(bundle);
  if (seed == null) throw unrevealed(bundle);
  const games = gameEvents(bundle), began = stored(bundle, "HandBegan"), opening = games[0];
  const options = opening?.data?.options ?? bundle.options;
  const unshuffled = composition(bundle.game, deckOptions(bundle.game, options));
  if (unshuffled == null) throw new Skipped(`no deck of ${bundle.game} is known here`);
  // The seats the deal goes round: the opening event's, else (withheld) HandBegan's.
  const shownSeats = opening?.data?.seats;
  for (const [where, listed] of [["HandBegan", began.seats], ["the opening event", shownSeats]]) seated(bundle.game, where, listed);
  const joined = began.seats.map((s) => s.seed || "");
  const deck = shuffle(unshuffled, seed, joined);
  const said = [];
  if (opening && opening.data != null) {
    const recorded = opening.data.deck ?? opening.data.pile;
    if (!same(recorded, deck)) throw new Failed("the recorded deck order is not the one the seeds give");
    said.push(`${deck.length} cards in the order the seeds give`);
  }
  // Bets that carried seeds (Sette e mezzo) had the deck shuffled again before the deal, from
  // the join seeds then theirs: the cards come off that deck.
  const playerSeeds = [...joined, ...betSeeds(games)];
  if (playerSeeds.length > joined.length) {
    const again = games.find((g) => g.type === "DeckShuffled");
    if (!again) throw new Failed("bets carried seeds but the deck was not shuffled again with them");
    if (again.data != null && !same(again.data.deck, shuffle(unshuffled, seed, playerSeeds))) {
      throw new Failed("the deck shuffled again with the bets' seeds is not the one the seeds give");
    }
  }
  const seats = (shownSeats || began.seats).map((s) => s.seat);
  let walked;
  try {
    walked = walk(bundle.game, games, unshuffled, seats, (cards, label) => shuffle(cards, seed, playerSeeds, label));
  } catch (e) {
    if (e instanceof Mismatch) throw new Failed(e.message);
    throw e;
  }
  if (walked != null && walked.checked) {
    said.push(`${walked.checked} cards dealt, each the one the seeds give`
      + (walked.withheld ? ` (${walked.withheld} events withheld from this viewer)` : "")
      + (walked.lost_at ? `, not walked past version ${walked.lost_at} (withheld)` : ""));
  }
  // Neither the deck's order nor any card dealt is shown to this viewer.
  if (!said.length) throw new Skipped("the deck and the cards dealt are withheld from this viewer");
  return said.join(", ");
}

function checkReplay(bundle) {
  if (!SEVEN_HALF_GAMES.includes(bundle.game)) throw new Skipped(`no rules of ${bundle.game} are re-played here`);
  if (bundle.rules_version !== 1) throw new Skipped(`rules version ${bundle.rules_version} of ${bundle.game} is not known here`);
  const games = gameEvents(bundle);
  if (!games.some((e) => e.type === "HandEnded")) throw new Skipped("the hand is still in play: nothing is settled to re-play");
  if (games.some((e) => e.data == null)) throw new Skipped("some of the hand's events are withheld from this viewer");
  const wrong = replaySevenHalf(bundle.game, games);
  if (wrong.length) throw new Failed(wrong.join("; "));
  return "totals, outcomes and payouts as the rules give them";
}

// A posting (or a part of one) in words: `35 from A to B (reason)`.
export function describe(v) {
  if (v !== null && typeof v === "object" && !Array.isArray(v)) {
    return `${describe(v.amount ?? null)} from ${describe(v.from ?? null)} to ${describe(v.to ?? null)} (${describe(v.reason ?? null)})`;
  }
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return `[${v.map(describe).join(", ")}]`;
  return canonicalJson(v ?? null);
}

// A TreasurePosted event's posting: one whole positive amount from one account to another.
function posting(event) {
  if (event.canonical == null) throw new Failed(`version ${event.version}: a posting is withheld, which Banco never does`);
  const data = parsed(event).data, amount = whole(data.amount);
  if (amount === null || amount <= 0 || typeof data.from !== "string" || typeof data.to !== "string" || data.from === data.to) {
    throw new Failed(`version ${event.version}: the posting ${describe(data)} is not one whole positive amount from one account to another`);
  }
  return data;
}

// The postings made during the hand (before HandSettled) are, one for one and in order, what the
// engine's events before them post (a 7½ bet or split: the seat to the escrow; a bust: the escrow
// to the banker; Cassino's and Pirate pairs' stakes: each seat to the pot), in the ledger's
// accounts: each event's postings follow it, as its command appends them after its own events. A
// withheld event posts what it shows. The number of postings held so.
function inHand(evs, game, table, hand, players) {
  const pending = []; // [the event, a posting it made] not posted yet
  let count = 0;
  for (const e of evs) {
    if (e.type.startsWith("game.")) {
      const body = parsed(e), type = e.type.slice(5);
      const data = body != null ? body.data.data : (e.shown ?? {}).data ?? null;
      try {
        const plan = settlement.posts(game, type, data, [...players.keys()].filter((k) => k !== null), describe) ?? [];
        for (const [source, target, amount, reason] of plan) {
          const n = whole(amount);
          if (n === null || n <= 0) throw new Failed(`version ${e.version} (${type}) posts ${describe(amount ?? null)}, not a whole positive amount`);
          pending.push([e, { from: settlement.ledgerAccount(source, table, hand, players, describe),
            to: settlement.ledgerAccount(target, table, hand, players, describe), amount: n, reason }]);
        }
      } catch (err) {
        if (err instanceof settlement.Wrong) throw new Failed(`version ${e.version} (${type}): ${err.message}`);
        throw err;
      }
    } else if (e.type === "TreasurePosted") {
      const have = posting(e);
      if (!pending.length) throw new Failed(`version ${e.version}: TreasurePosted pays ${describe(have)}, which no event of the hand posts`);
      const [by, want] = pending.shift();
      if (!same(have, { ...want, table, hand })) {
        throw new Failed(`version ${e.version}: TreasurePosted pays ${describe(have)} where version ${by.version} (${by.type.slice(5)}) posts ${describe(want)}`);
      }
      count++;
    }
  }
  if (pending.length) {
    const [by, want] = pending[0];
    throw new Failed(`no TreasurePosted pays ${describe(want)}, which version ${by.version} (${by.type.slice(5)}) posts`);
  }
  return count;
}

// The settlement paid what the engine decided, and the hand's money adds up: HandSettled's postings
// and the TreasurePosted events after it are the engine's settlement (its HandEnded, GameWon,
// RoundScored) in the ledger's accounts; walked in order from what each held at the deal, no
// account pays more than it holds, and the hand's escrow (and a pot the settlement paid out) is
// left empty: what it took in, it paid out.
function checkSettlement(bundle) {
  const evs = events(bundle);
  const settledAt = evs.findIndex((e) => e.type === "HandSettled");
  if (settledAt < 0) throw new Skipped("the hand is not settled yet");
  const games = gameEvents(bundle), game = bundle.game, table = bundle.table_id, hand = bundle.hand_id;
  let plan;
  try {
    plan = settlement.decided(game, games, describe);
  } catch (e) {
    if (e instanceof settlement.Withheld) throw new Skipped(`${e.message} is withheld from this viewer: what the engine decided cannot be read`);
    if (e instanceof settlement.Wrong) throw new Failed(e.message);
    throw e;
  }
  if (plan === null) throw new Skipped(`no settlement of ${game} is known here`);
  const by = settlement.DECIDED_BY[game], began = stored(bundle, "HandBegan");
  if (began == null) throw new Failed("the bundle holds no HandBegan");
  const players = new Map(began.seats.map((s) => [whole(s.seat), s.player_id]));
  const want = [];
  let held;
  try {
    for (const [source, target, amount, reason] of plan) {
      const n = whole(amount);
      if (n === null || n <= 0) throw new Failed(`${by} decides a posting of ${describe(amount ?? null)}, not a whole positive amount`);
      want.push({ from: settlement.ledgerAccount(source, table, hand, players, describe),
        to: settlement.ledgerAccount(target, table, hand, players, describe), amount: n, reason });
    }
    held = settlement.opening(game, games, table, hand, players, describe);
  } catch (e) {
    if (e instanceof settlement.Wrong) throw new Failed(e.message);
    throw e;
  }
  const settled = evs[settledAt];
  if (settled.canonical == null) throw new Failed(`version ${settled.version}: HandSettled is withheld, which Banco never does`);
  const recorded = parsed(settled).data.postings;
  if (!Array.isArray(recorded)) throw new Failed("HandSettled's postings are not a list");
  for (let i = 0; i < Math.min(recorded.length, want.length); i++) {
    if (!same(recorded[i], want[i])) throw new Failed(`HandSettled pays ${describe(recorded[i])} where ${by} decided ${describe(want[i])}`);
  }
  if (recorded.length > want.length) throw new Failed(`HandSettled pays ${describe(recorded[want.length])}, which ${by} did not decide`);
  if (recorded.length < want.length) throw new Failed(`HandSettled does not pay ${describe(want[recorded.length])}, which ${by} decided`);
  const paid = evs.slice(settledAt + 1).filter((e) => e.type === "TreasurePosted").map((e) => [e, posting(e)]);
  for (let i = 0; i < Math.min(paid.length, want.length); i++) {
    const [e, have] = paid[i];
    if (!same(have, { ...want[i], table, hand })) {
      throw new Failed(`version ${e.version}: TreasurePosted pays ${describe(have)} where ${by} decided ${describe(want[i])}`);
    }
  }
  if (paid.length > want.length) {
    const [e, have] = paid[want.length];
    throw new Failed(`version ${e.version}: TreasurePosted pays ${describe(have)}, which ${by} did not decide`);
  }
  if (paid.length < want.length) throw new Failed(`no TreasurePosted pays ${describe(want[paid.length])}, which ${by} decided`);
  const during = inHand(evs.slice(0, settledAt), game, table, hand, players);
  // The money walked: every posting of the hand, from what each account held at the deal.
  for (const e of evs) {
    if (e.type !== "TreasurePosted") continue;
    const p = posting(e);
    if (held.has(p.from)) {
      if (p.amount > held.get(p.from)) throw new Failed(`version ${e.version}: ${p.from} pays ${p.amount}, holding ${held.get(p.from)}: more than it holds`);
      held.set(p.from, held.get(p.from) - p.amount);
    }
    if (held.has(p.to)) held.set(p.to, held.get(p.to) + p.amount);
  }
  const emptied = [`escrow:${table}:${hand}`, ...[...new Set(want.map((w) => w.from).filter((a) => a.startsWith("pot:")))].sort()];
  for (const account of emptied) {
    if ((held.get(account) ?? 0) !== 0) {
      throw new Failed(`${account} keeps ${held.get(account)} once the hand is settled: what it took in, it did not pay out`);
    }
  }
  return `${want.length} settlement postings as ${by} decided, ${during} during the hand as its events posted them; ${held.size} accounts walked from the deal, none paying more than it held or keeping what it had to pay out`;
}

// What the bundle says it is evidence of: its hand, table, game and viewer (each null when the
// bundle names none), so that an auditor can see it is the disputed hand's. The bundle's word,
// which its attestation covers.
export function named(bundle) {
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const get = (k) => (isObject(bundle) && Object.hasOwn(bundle, k) ? bundle[k] : null);
  const text = (k) => (typeof get(k) === "string" ? get(k) : null);
  const v = get("viewer");
  const viewer = isObject(v)
    ? { kind: typeof v.kind === "string" ? v.kind : null, seat: whole(v.seat ?? null) }
    : null;
  return { hand_id: text("hand_id"), table_id: text("table_id"), game: text("game"), viewer };
}

// `named` in one line: `hand H, table T, game G, viewer auditor` (`?` for what is not named).
export function namedLine(names) {
  const v = names.viewer;
  const who = v === null ? "?" : (v.kind || "?") + (v.seat === null ? "" : ` ${v.seat}`);
  return `hand ${names.hand_id || "?"}, table ${names.table_id || "?"}, game ${names.game || "?"}, viewer ${who}`;
}

// Every check; `key` the house's public key (32 bytes) when pinned. A bundle of the former format
// banco-evidence/1, which has no attestation, fails it unless `allowUnattested` (then its
// attestation is skipped, the rest checked).
export function verify(bundle, key = null, { allowUnattested = false } = {}) {
  const outcomes = {};
  if (tooDeep(bundle)) return { ok: false, outcomes: { format: ["failed", `nested deeper than ${MAX_DEPTH} levels`] } };
  if (inexact(bundle)) return { ok: false, outcomes: { format: ["failed", INEXACT] } };
  if (bundle === null || typeof bundle !== "object" || !FORMATS.includes(bundle.format)) {
    return { ok: false, outcomes: { format: ["failed", `not a ${FORMATS.join(" or ")} bundle`] } };
  }
  bundle = within(bundle);
  const runs = { signature: () => checkSignature(bundle, key), attestation: () => checkAttestation(bundle, key, allowUnattested),
    inclusion: () => checkInclusion(bundle),
    chain: () => checkChain(bundle), contents: () => checkContents(bundle), commitment: () => checkCommitment(bundle),
    deck: () => checkDeck(bundle), replay: () => checkReplay(bundle), settlement: () => checkSettlement(bundle) };
  for (const name of CHECKS) {
    try {
      outcomes[name] = ["passed", runs[name]()];
    } catch (e) {
      if (e instanceof Skipped) outcomes[name] = ["skipped", e.message];
      else if (e instanceof Failed || e instanceof Missing) outcomes[name] = ["failed", e.message];
      // A stored text (an event's, the statement) JSON itself allows.
      else if (e instanceof NotJson) outcomes[name] = ["failed", `a stored text cannot be read (${e.message})`];
      else outcomes[name] = ["failed", `the bundle cannot be read (${e.name}: ${e.message})`];
    }
  }
  return { ok: Object.values(outcomes).every(([s]) => s !== "failed"), outcomes };
}
