/** The SDK follows openapi.yaml: its types are what openapi-typescript generates from the spec
 * as committed (a change to the spec that breaks them fails here, and `tsc` strict on the SDK),
 * and its version is the API's. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { API_VERSION } from "../src/index.js";
import type { FeedEvent, FeedStreamMessage, WebhookEvent } from "../src/index.js";

const PACKAGE = fileURLToPath(new URL("../..", import.meta.url));  // from dist/test
const SPEC = join(PACKAGE, "..", "..", "openapi.yaml");

test("the committed types are what openapi-typescript generates from openapi.yaml", () => {
  const folder = mkdtempSync(join(tmpdir(), "banco-schema-"));
  try {
    const out = join(folder, "schema.ts");
    execFileSync(process.execPath, [join(PACKAGE, "node_modules", "openapi-typescript", "bin", "cli.js"),
                                    SPEC, "-o", out], { stdio: "pipe" });
    assert.equal(readFileSync(join(PACKAGE, "src", "schema.ts"), "utf8"), readFileSync(out, "utf8"),
                 "src/schema.ts is stale: run `npm run generate` in clients/typescript, then `npm run build`");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the package's version is the API's", () => {
  const spec = readFileSync(SPEC, "utf8");
  const info = /^info:\n((?:[ ]{2}.*\n)+)/m.exec(spec);
  const version = info && /^ {2}version: ['"]?([^'"\n]+)['"]?$/m.exec(info[1]!);
  assert.ok(version, "openapi.yaml has an info.version");
  const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { version: string };
  assert.equal(pkg.version, version[1]);
  assert.equal(API_VERSION, version[1]);
});

// The same type both ways, or a compile error where it is used (`tsc` builds these tests).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

test("a webhook's body and the log stream's messages are typed as the feed's events", () => {
  // openapi-typescript once made both `Omit<FeedEvent, "type">`: no real body type-checked.
  const dataIsFeedEvent: Same<WebhookEvent["data"], FeedEvent> = true;
  const messageIsFeedEvent: Same<FeedStreamMessage, FeedEvent> = true;
  const body: WebhookEvent = {
    type: "TreasurePosted", timestamp: "2026-11-29T03:00:00Z",
    data: { type: "TreasurePosted", position: 7, stream: "treasury", version: 3,
            recorded_at: "2026-11-29T03:00:00Z",
            data: { from: "wallet:pl_1", to: "seat:tb_1:pl_1", amount: 50, reason: "buy_in" } },
  };
  const amount = body.data.type === "TreasurePosted" ? body.data.data.amount : undefined;
  assert.deepEqual([dataIsFeedEvent, messageIsFeedEvent, amount], [true, true, 50]);
});

test("the README's typed events compile under strict tsc, each narrowed by the type it names", () => {
  // The README said a table's events narrow on "game.CardDealt", which only the feed's do: a
  // TableEvent compared with it is TS2367 under strict tsc. Its listing is compiled here as a
  // user's code, importing the package by its name (a self-reference to the built types).
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  const after = readme.split("- **Typed events.**")[1];
  assert.ok(after !== undefined, "the README has its bullet on typed events");
  const listing = /^ *```ts\n([\s\S]*?)^ *```$/m.exec(after.split("\n- **")[0]!);
  assert.ok(listing, "the bullet on typed events shows them in a ```ts listing");
  const code = listing[1]!.replace(/^ {2}/gm, "");
  assert.match(code, /"CardDealt"/);
  assert.match(code, /"game\.CardDealt"/);
  const folder = mkdtempSync(join(PACKAGE, "dist", "readme-"));  // inside the package: its name resolves
  try {
    writeFileSync(join(folder, "events.ts"), code);
    try {
      execFileSync(process.execPath, [join(PACKAGE, "node_modules", "typescript", "bin", "tsc"), "--strict",
                                      "--noEmit", "--target", "ES2022", "--module", "NodeNext",
                                      "--moduleResolution", "NodeNext", "--skipLibCheck",
                                      join(folder, "events.ts")], { stdio: "pipe" });
    } catch (error) {
      assert.fail(`the README's typed events do not compile:\n${String((error as { stdout: Buffer }).stdout)}`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
