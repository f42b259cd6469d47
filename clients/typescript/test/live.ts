/** What the tests against a running Banco share: its address and operator key, from the
 * environment (`BANCO_URL`, `BANCO_OPERATOR_KEY`: tests/clients/test_typescript_sdk.py starts
 * one), and players made with treasure. */
import { createServer, type AddressInfo } from "node:net";

import { Banco, type BancoOptions } from "../src/index.js";

export function server(): { url: string; key: string } {
  const url = process.env.BANCO_URL;
  const key = process.env.BANCO_OPERATOR_KEY;
  if (!url || !key) {
    throw new Error("these tests need a running Banco: set BANCO_URL and BANCO_OPERATOR_KEY "
      + "(tests/clients/test_typescript_sdk.py starts one and runs them)");
  }
  return { url, key };
}

export function operator(options: Partial<BancoOptions> = {}): Banco {
  const { url, key } = server();
  return new Banco({ url, token: key, ...options });
}

export interface TestPlayer {
  id: string;
  token: string;
  banco: Banco;
}

let made = 0;

export async function newPlayer(deposit = 0, options: Partial<BancoOptions> = {}): Promise<TestPlayer> {
  const op = operator();
  const created = await op.createPlayer(`Bot ${++made}`);
  if (deposit > 0) await op.deposit(created.player.id, deposit, "desk");
  return { id: created.player.id, token: created.token, banco: operator({ ...options, token: created.token }) };
}

/** A fetch that records every request it sends, and lets a test change what it answers. */
export function recording(answer?: (request: Request, attempt: number) => Promise<Response | undefined> | undefined) {
  const sent: Request[] = [];
  const fetcher = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    sent.push(request.clone());
    const replaced = answer?.(request.clone(), sent.length);
    return (await replaced) ?? fetch(request);
  };
  return { sent, fetch: fetcher as typeof fetch };
}

/** The URL of a port nothing listens on (one just closed). */
export async function closedUrl(): Promise<string> {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  await new Promise((resolve) => listener.close(resolve));
  return `http://127.0.0.1:${port}`;
}
