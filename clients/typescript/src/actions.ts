import type { Action, LegalAction } from "./types.js";

export interface Range {
  min: number;
  max: number;
}

function isRange(value: unknown): value is Range {
  return typeof value === "object" && value !== null && "min" in value && "max" in value
    && Object.keys(value).length === 2;
}

/**
 * An offered action made one to send: each `{min, max}` range replaced by a whole number in it
 * (`pick`'s, by default the least), in maps of ranges too (Casino pirate's `declare`); the rest
 * as offered.
 */
export function concrete(offer: LegalAction, pick: (range: Range, field: string) => number = (r) => r.min
): Action {
  const sent: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(offer)) {
    if (isRange(value)) {
      sent[field] = pick(value, field);
    } else if (typeof value === "object" && value !== null && !Array.isArray(value)
               && Object.values(value).every(isRange)) {
      sent[field] = Object.fromEntries(Object.entries(value as Record<string, Range>)
        .map(([key, range]) => [key, pick(range, `${field}.${key}`)]));
    } else {
      sent[field] = value;
    }
  }
  return sent as Action;
}
