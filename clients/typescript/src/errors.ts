import type { components } from "./schema.js";

export type Problem = components["schemas"]["Problem"];

/** The members every problem has (RFC 9457 and Banco's `code`); the rest are `extra`. */
const STANDARD = new Set(["type", "title", "status", "detail", "code", "request_id"]);

/**
 * An answer other than a success, read from its `application/problem+json` body: `status`,
 * Banco's stable `code`, the `detail` for people, and whatever else the problem carries in
 * `extra` (`errors` for a 422, `version` for a 412, `balance` for insufficient_treasure...).
 */
export class BancoError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly problem: Problem;
  readonly extra: Record<string, unknown>;
  /** Seconds the server asked to wait before a retry (429, 503), when it said. */
  readonly retryAfter: number | undefined;
  readonly requestId: string | undefined;

  constructor(status: number, problem: Problem, retryAfter?: number) {
    const code = typeof problem.code === "string" ? problem.code : `http_${status}`;
    const detail = typeof problem.detail === "string" ? problem.detail
      : typeof problem.title === "string" ? problem.title : `HTTP ${status}`;
    super(`${status} ${code}: ${detail}`);
    this.name = "BancoError";
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.problem = problem;
    this.extra = Object.fromEntries(Object.entries(problem).filter(([k]) => !STANDARD.has(k)));
    this.retryAfter = retryAfter;
    this.requestId = typeof problem.request_id === "string" ? problem.request_id : undefined;
  }

  /** The problem an error response carries; a body that is not one (a proxy's page) is kept
   * as the detail. */
  static async from(response: Response, retryAfter?: number): Promise<BancoError> {
    const text = await response.text().catch(() => "");
    let problem: Problem;
    try {
      const parsed: unknown = JSON.parse(text);
      problem = (parsed !== null && typeof parsed === "object" ? parsed : { detail: text }) as Problem;
    } catch {
      problem = { status: response.status, detail: text.slice(0, 500) || response.statusText };
    }
    return new BancoError(response.status, problem, retryAfter);
  }
}

/** What Node's fetch names the commonest causes by (`cause.code`), said as people say them. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: "Connection refused",
  ECONNRESET: "Connection reset",
  ENOTFOUND: "Name or service not known",
  EAI_AGAIN: "Temporary failure in name resolution",
  ETIMEDOUT: "Connection timed out",
  EHOSTUNREACH: "No route to host",
  ENETUNREACH: "Network is unreachable",
  UND_ERR_CONNECT_TIMEOUT: "Connection timed out",
  UND_ERR_SOCKET: "Connection lost",
};

/** The innermost `cause` of `error` said in one line: fetch's own message ("fetch failed") says
 * nothing of why, the cause it carries (a refused connection, an unknown host) does. */
function said(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  const message = inner instanceof Error ? inner.message : String(inner);
  // fetch refuses, without trying, the ports browsers block (1, 25, 6000...): "bad port".
  if (message === "bad port") return "bad port: fetch does not connect to this port (one browsers block)";
  const code = typeof inner === "object" && inner !== null && "code" in inner ? String(inner.code) : "";
  const words = CAUSES[code];
  return words === undefined || message.includes(words) ? message : `${words} (${message})`;
}

/**
 * Banco could not be reached, or the connection was lost, after the client's retries: no answer
 * at all, so `status` is 0 and `code` is `connection_failed` (as the Python SDK's). `url` is
 * Banco's address as the client was given it, `cause` what fetch threw, and `detail` its cause
 * in one line.
 */
export class ConnectionFailed extends BancoError {
  readonly url: string;

  constructor(url: string, cause: unknown) {
    const detail = said(cause);
    // Not one of the API's codes: the client's own, for no answer at all.
    super(0, { code: "connection_failed", detail } as unknown as Problem);
    this.message = `cannot reach Banco at ${url}: ${detail}`;
    this.name = "ConnectionFailed";
    this.url = url;
    this.cause = cause;
  }
}
