import { EventSourceParserStream } from "eventsource-parser/stream";

/** One Server-Sent Event: its `id:` (where a resumed stream goes on after), its `event:` name and
 * its `data:` read as JSON. */
export interface StreamMessage<T = unknown> {
  id: string | undefined;
  event: string;
  data: T;
}

export interface FollowOptions {
  /** Where to start: the `id` of the last message already had (sent as `Last-Event-ID`). */
  lastEventId?: string | undefined;
  /** Open the stream again when the server ends it or the connection is cut (default true):
   * the next one goes on after the last message received, so none is missed or repeated. */
  reconnect?: boolean;
  /** Stops following (the iteration ends). */
  signal?: AbortSignal | undefined;
  /** Cuts in a row, with no message between, after which the error is thrown (default 5). */
  maxFailures?: number;
  /** The wait before opening again after a cut, doubled for each cut in a row (default 250 ms). */
  retryDelayMs?: number;
}

/** Opens the stream once, after `lastEventId` when given, with `signal` to cut it. */
export type OpenStream = (lastEventId: string | undefined, signal: AbortSignal) => Promise<Response>;

function aborted(signal: AbortSignal | undefined, error?: unknown): boolean {
  return signal?.aborted === true
    || (error instanceof Error && (error.name === "AbortError"));
}

/**
 * The messages of a Server-Sent Events stream read with `fetch` (so it may send headers an
 * EventSource cannot, such as `Authorization`), parsed by eventsource-parser, and followed
 * across the server's ends and cut connections by `Last-Event-ID`, as an EventSource does.
 * Ending the iteration (`break`, `return`, the signal) closes the connection.
 */
export async function* follow<T = unknown>(open: OpenStream, options: FollowOptions = {}
): AsyncGenerator<StreamMessage<T>, void, undefined> {
  const { reconnect = true, signal, maxFailures = 5, retryDelayMs = 250 } = options;
  let last = options.lastEventId;
  let failures = 0;
  while (!signal?.aborted) {
    const cut = new AbortController();
    const stop = () => cut.abort(signal?.reason);
    signal?.addEventListener("abort", stop, { once: true });
    let reader: ReadableStreamDefaultReader<{ id?: string | undefined; event?: string | undefined; data: string }> | undefined;
    try {
      const response = await open(last, cut.signal);
      if (response.body === null) throw new Error("the stream's response has no body");
      reader = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        failures = 0;
        if (value.id !== undefined) last = value.id;
        yield { id: value.id, event: value.event ?? "message", data: JSON.parse(value.data) as T };
      }
    } catch (error) {
      if (aborted(signal, error)) return;
      // Refusals (a 4xx BancoError) are not cuts: following again would be refused again. A
      // connection that failed (status 0, no answer) is one.
      if (typeof error === "object" && error !== null && "status" in error && error.status !== 0) throw error;
      failures += 1;
      if (!reconnect || failures > maxFailures) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** (failures - 1)));
      continue;
    } finally {
      signal?.removeEventListener("abort", stop);
      cut.abort();
      reader?.cancel().catch(() => undefined);
    }
    if (!reconnect) return;
  }
}
