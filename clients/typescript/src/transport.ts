import { BancoError, ConnectionFailed } from "./errors.js";

/** How the client retries what the server asked it to try again (429, 503) and requests that
 * got no answer (a connection lost). */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  retries: number;
  /** The longest wait the client accepts: a `Retry-After` beyond it ends the retries at once
   * with the error, rather than waiting less than the server asked (default 30 s). */
  maxDelayMs: number;
  /** The first wait when the server named none, doubled at each retry (default 250 ms). */
  baseDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, maxDelayMs: 30_000, baseDelayMs: 250 };

const RETRIED_STATUSES = new Set([429, 503]);
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A new Idempotency-Key: a random UUID (v4), from `getRandomValues`, which pages served over
 * plain http have too (`randomUUID` needs a secure context). */
export function newIdempotencyKey(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Seconds, or an HTTP date, as milliseconds from now. */
export function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function sleep(ms: number, signal: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

/**
 * A `fetch` that sends every write with an `Idempotency-Key` (the caller's, or a new one),
 * retries 429 and 503 after their `Retry-After` and requests that got no answer, each retry the
 * very same request (the same key: a write the server had already applied is answered from
 * its record, not applied twice), and turns any other failure into a `BancoError`: no answer
 * after the retries, a `ConnectionFailed` naming `url` (Banco's address; the request's origin
 * when not given).
 */
export function retryingFetch(base: typeof fetch, policy: RetryPolicy,
                              newKey: () => string = newIdempotencyKey,
                              url?: string): (request: Request) => Promise<Response> {
  return async (request: Request): Promise<Response> => {
    if (WRITES.has(request.method) && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", newKey());
    }
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await base(request.clone());
      } catch (error) {
        // No answer: the write may or may not have been applied; its key tells the server.
        if (isAbort(error)) throw error;
        // fetch's own error says only "fetch failed": the cause and Banco's address say why.
        if (attempt >= policy.retries) throw new ConnectionFailed(url ?? new URL(request.url).origin, error);
        await sleep(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt), request.signal);
        continue;
      }
      if (response.ok || response.status === 304) return response;
      const asked = retryAfterMs(response.headers.get("Retry-After"));
      if (RETRIED_STATUSES.has(response.status) && attempt < policy.retries
          && (asked === undefined || asked <= policy.maxDelayMs)) {
        await response.body?.cancel().catch(() => undefined);
        await sleep(asked ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt),
                    request.signal);
        continue;
      }
      throw await BancoError.from(response, asked === undefined ? undefined : asked / 1000);
    }
  };
}
