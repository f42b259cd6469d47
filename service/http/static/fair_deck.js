// Fair decks in the browser: the commitment and the shuffle of docs/fair-decks.md, bit for bit
// as games/deck.py makes them, with WebCrypto alone, so that a hand can be checked without
// trusting the server that dealt it.
//
// WebCrypto (`crypto.subtle`) exists in secure contexts only: https, or http on localhost.

const utf8 = new TextEncoder();

export function available() {
  return Boolean(globalThis.crypto && crypto.subtle);
}

// The bytes a hex string spells; a ValueError's twin for anything else.
export function fromHex(hex) {
  if (typeof hex !== "string" || !/^(?:[0-9a-fA-F]{2})*$/.test(hex)) {
    throw new TypeError("the server seed is not hex");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function be32(n) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

function be64(n) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

// 1. commitment = SHA-256(server seed bytes), as hex.
export async function commitment(serverSeed) {
  return toHex(await crypto.subtle.digest("SHA-256", fromHex(serverSeed)));
}

// 2. key = SHA-256(seed bytes || for each player seed, in seat order: len32be || UTF-8).
export async function shuffleKey(serverSeed, playerSeeds) {
  const parts = [fromHex(serverSeed)];
  for (const text of playerSeeds) {
    const raw = utf8.encode(text);
    parts.push(be32(raw.length), raw);
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", concat(parts)));
}

// 3. The 32-bit big-endian integers of HMAC-SHA256(key, label || counter64be), counter 0, 1, ...
function words(hmacKey, label) {
  const prefix = utf8.encode(label);
  let counter = 0;
  let block = [];
  return async () => {
    if (!block.length) {
      const mac = await crypto.subtle.sign("HMAC", hmacKey, concat([prefix, be64(counter)]));
      counter += 1;
      const view = new DataView(mac);
      block = Array.from({ length: 8 }, (_, i) => view.getUint32(4 * i));
    }
    return block.shift();
  };
}

// 4-5. Fisher-Yates from the last position down, each swap with uniform(i + 1) without modulo bias.
export async function shuffled(cards, serverSeed, playerSeeds, label = "deck") {
  const key = await crypto.subtle.importKey("raw", await shuffleKey(serverSeed, playerSeeds),
    { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const next = words(key, label);
  const out = [...cards];
  for (let i = out.length - 1; i > 0; i--) {
    const n = i + 1;
    const limit = 2 ** 32 - (2 ** 32 % n);
    let x = await next();
    while (x >= limit) x = await next();
    const j = x % n;
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// The unshuffled decks of games/deck.py.
const FRENCH_SUITS = ["s", "h", "d", "c"];
const SPANISH_SUITS = ["o", "c", "e", "b"];
const suited = (ranks, suits) => suits.flatMap((s) => ranks.map((r) => r + s));

export const decks = {
  italian40: () => suited(["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"], FRENCH_SUITS),
  spanish40: () => suited(["1", "2", "3", "4", "5", "6", "7", "10", "11", "12"], SPANISH_SUITS),
  french52: () => suited(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], FRENCH_SUITS),
  pirateCasino({ gems = 4, gold_coins: gold = 8, pebbles = 4, skeletons = 2 } = {}) {
    const range = (n) => Array.from({ length: n }, (_, i) => i + 1);
    return [
      ...range(7).flatMap((v) => range(gems).map((i) => `gem${v}.${i}`)),
      ...range(gold).map((i) => `gold.${i}`),
      ...range(pebbles).map((i) => `pebble.${i}`),
      ...range(skeletons).map((i) => `skeleton.${i}`),
    ];
  },
  piratePairs55() {
    const out = [];
    for (let v = 1; v <= 10; v++) for (let i = 1; i <= v; i++) out.push(`${v}.${i}`);
    return out;
  },
};
