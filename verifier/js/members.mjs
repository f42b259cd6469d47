// A bundle read member by member: one it lacks, at any depth, fails the check that reads it, named
// by where it sits (`the bundle has no seeds.server_seed`, `... no events[3].hash`), in the words
// of the Python verifier (banco_verifier/members.py) and of Banco's own reading of a bundle.
// JavaScript reads a missing member as `undefined` and goes on (to `Cannot read properties of
// undefined`, or to a wrong reason): the members each check needs are listed here, by where they
// sit (`events[]` for every event); the Python readers name any they read with `[]`.

export class Missing extends Error {}

const EVENT = ["position", "stream_id", "version", "type", "recorded_at", "hash", "canonical"];
const PROOF = ["tree_size", "leaf_index", "path"];
const REQUIRED = {
  "": ["format", "hand_id", "table_id", "game", "viewer", "rules_version", "options", "redacted",
    "events", "chain", "table_created", "seeds", "postings", "checkpoint", "inclusion", "attestation"],
  checkpoint: ["public_key", "statement", "signature"],
  attestation: ["algorithm", "key_id", "signature"],
  inclusion: ["last_event", "table_created"],
  "inclusion.last_event": PROOF,
  "inclusion.table_created": PROOF,
  chain: ["stream_id", "first_version", "previous_hash"],
  seeds: ["commitment", "player_seeds", "server_seed"],
  viewer: ["kind"],
  table_created: EVENT,
  "events[]": EVENT,
};

const isObject = (v) => v !== null && typeof v === "object";

// `value`, found at `where` in the bundle, read so that a member it needs and lacks is named.
export function within(value, where = "") {
  if (!isObject(value)) return value;
  if (Array.isArray(value)) {
    return new Proxy(value, {
      get(target, name, receiver) {
        const got = Reflect.get(target, name, receiver);
        return typeof name === "string" && /^\d+$/.test(name) ? within(got, `${where}[${name}]`) : got;
      },
    });
  }
  const needed = new Set(REQUIRED[where.replace(/\[\d+\]/g, "[]")] ?? []);
  return new Proxy(value, {
    get(target, name, receiver) {
      if (typeof name !== "string") return Reflect.get(target, name, receiver);
      const at = where ? `${where}.${name}` : name;
      if (!Object.hasOwn(target, name)) {
        if (needed.has(name)) throw new Missing(`the bundle has no ${at}`);
        return Reflect.get(target, name, receiver);
      }
      return within(Reflect.get(target, name, receiver), at);
    },
  });
}
