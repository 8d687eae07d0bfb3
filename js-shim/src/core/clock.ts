// Cron times for the core's schedules, with croner (5-field patterns, IANA time zones, the
// daylight-saving rules of the Open Cron Pattern Specification), and the user's time zone.
import { Cron } from "croner";

/** The next time (ms) `expression` fires strictly after `afterMs`, or null; throws with the
 * reason when the pattern or the zone is not valid. */
export function cronNext(expression: string, timeZone: string, afterMs: number): number | null {
  const next = new Cron(expression, { timezone: timeZone, mode: "5-part" }).nextRun(new Date(afterMs));
  return next ? next.getTime() : null;
}

/** The IANA time zone this machine is set to. */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
