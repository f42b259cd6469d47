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
