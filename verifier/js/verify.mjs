#!/usr/bin/env node
// banco-verify-bundle FILE [--key KEY] [--json] [--allow-unattested]: checks a Banco evidence
// bundle offline. Exit status 0 when no check failed, 1 when one did, 2 when the file or the key
// cannot be read.
import { existsSync, readFileSync } from "node:fs";
import { named, namedLine, readJson, verify } from "./checks.mjs";

const USAGE = "usage: banco-verify-bundle FILE [--key BASE64|FILE] [--json] [--allow-unattested]";
const HELP = `${USAGE}

Checks a Banco evidence bundle offline. Exit status 0 when no check failed, 1 when one did,
2 when the file or the key cannot be read.

  FILE                the evidence bundle (JSON)
  --key KEY           the house's public key (base64, or a file with it)
  --json              print the outcomes as JSON
  --allow-unattested  check a banco-evidence/1 bundle, made before bundles were attested: its
                      attestation is skipped, not failed (its viewer, shown data and summary
                      fields are then its word alone)
  -h, --help          show this help`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(HELP);
  process.exit(0);
}
const flag = (name) => { const i = args.indexOf(name); return i < 0 ? null : args.splice(i, 2)[1]; };
const switched = (name) => args.includes(name) && args.splice(args.indexOf(name), 1).length > 0;
const asJson = switched("--json"), allowUnattested = switched("--allow-unattested");
let keyText = flag("--key");
if (args.length !== 1) {
  console.error(USAGE);
  process.exit(2);
}
// A file's text as both verifiers read it: UTF-8 (invalid bytes refused, not replaced), a leading
// byte order mark dropped.
const text = (path) => new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(readFileSync(path)).replace(/^\uFEFF/, "");
// An error's message on one line (V8's JSON errors quote the text around the fault, newlines and all).
const said = (e) => e.message.replace(/\s+/g, " ");
const refuse = (why) => { console.error(`--key: ${why}`); process.exit(2); };
// A key given on the command line itself: padded base64 (a house key's is 44 characters).
// Anything else, or a name a file has, is a file to read the key from.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// Why a key file cannot be read, in the Python verifier's words.
const READ_ERRORS = { ENOENT: "no such file", EISDIR: "a folder, not a file" };
let key = null;
// An empty --key (`--key ""`, a variable that was not set): said as the Python verifier says it.
if (keyText === "") refuse("empty: give the house's public key (base64) or a file that holds it");
if (keyText != null && !existsSync(keyText) && keyText.length % 4 === 0 && BASE64.test(keyText)) {
  key = Buffer.from(keyText, "base64");
  if (key.length !== 32) refuse(`${keyText} is no file, and as base64 not an Ed25519 public key (32 bytes)`);
} else if (keyText != null) {
  const path = keyText;
  try { keyText = text(path).trim(); } catch (e) { refuse(`${path} cannot be read (${READ_ERRORS[e.code] ?? said(e)})`); }
  if (keyText.startsWith("{")) {
    let published;
    try { published = readJson(keyText); } catch (e) { refuse(`${path} is not JSON (${said(e)})`); }
    if (published === null || typeof published !== "object" || typeof published.public_key !== "string") {
      refuse(`${path} has no "public_key" (as Banco's /.well-known/banco-house-key has)`);
    }
    keyText = published.public_key;
  }
  key = Buffer.from(keyText, "base64");
  if (key.length !== 32) refuse("an Ed25519 public key is 32 bytes");
}
let bundle;
try {
  bundle = readJson(text(args[0]));
} catch (e) {
  console.error(`${args[0]}: cannot be read as JSON (${said(e)})`);
  process.exit(2);
}
const { ok, outcomes } = verify(bundle, key, { allowUnattested });
const names = named(bundle);
// The reader went away (`| head`): stop quietly, as Unix tools do.
process.stdout.on("error", (e) => { if (e.code === "EPIPE") process.exit(ok ? 0 : 1); throw e; });
if (asJson) {
  console.log(JSON.stringify({ ok, ...names, checks: Object.fromEntries(Object.entries(outcomes).map(([k, [status, detail]]) => [k, { status, detail }])) }));
} else {
  console.log(`${"BUNDLE".padEnd(8)} ${"of".padEnd(11)} ${namedLine(names)}`);
  for (const [name, [status, detail]] of Object.entries(outcomes)) console.log(`${status.toUpperCase().padEnd(8)} ${name.padEnd(11)} ${detail}`);
  const failed = Object.entries(outcomes).filter(([, [s]]) => s === "failed").map(([n]) => n);
  console.log(ok ? "VERIFIED" : `FAILED: ${failed.join(", ")}`);
}
process.exit(ok ? 0 : 1);
