// Cron times for the core's schedules, with croner (5-field patterns, IANA time zones, the
// daylight-saving rules of the Open Cron Pattern Specification), and the user's time zone.
import { Cron } from "croner";

/** The next time (ms) `expression` fires strictly after `afterMs`, or null; throws with the
 * reason when the pattern or the zone is not valid. */
export function cronNext(expression: string, timeZone: string, afterMs: number): number | null {
  const next = new Cron(expression, { timezone: timeZone, mode: "5-part" }).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

/** How long the machine's time zone is remembered: asking `Intl` costs about 0.1 ms, and the
 * core asks once per message (for the system prompt); a zone change shows within a minute. */
const TIME_ZONE_TTL_MS = 60_000;
let cachedZone: { zone: string; at: number } | null = null;

/** The IANA time zone this machine is set to. */
export function localTimeZone(): string {
  const now = Date.now();
  if (!cachedZone || now - cachedZone.at > TIME_ZONE_TTL_MS) {
    cachedZone = { zone: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC", at: now };
  }
  return cachedZone.zone;
}
