/**
 * Times as a person reads them on the page: "waiting 3 min", "expires in
 * 12 min", "28 Nov 2026, 04:27 UTC". page.js has the same rules for the
 * times it ticks and shows in the browser's own time zone.
 */

/** A span of time in the largest units that say it: `45 s`, `12 min`, `2 h 5 min`, `3 d 4 h`. */
export function durationText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** How long a request has waited. */
export function waitingText(createdAt: number, now: number): string {
  return now - createdAt < 60_000 ? 'waiting under a minute' : `waiting ${durationText(now - createdAt)}`;
}

/** How long until a request expires. */
export function expiresText(expiresAt: number, now: number): string {
  return expiresAt <= now ? 'expired' : `expires in ${durationText(expiresAt - now)}`;
}

/** How long a sign-in lasts, in words: `8 hours`, `30 minutes`. */
export function lifetimeText(seconds: number): string {
  const unit = (count: number, name: string) => `${count} ${name}${count === 1 ? '' : 's'}`;
  if (seconds % 86_400 === 0) return unit(seconds / 86_400, 'day');
  if (seconds % 3600 === 0) return unit(seconds / 3600, 'hour');
  if (seconds % 60 === 0) return unit(seconds / 60, 'minute');
  return unit(seconds, 'second');
}

const DAY_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

const TIME_OF_DAY = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** An instant for the first paint, in UTC: `28 Nov 2026, 04:27 UTC` (page.js shows it in local time). */
export function instantText(ms: number): string {
  return `${DAY_TIME.format(ms)} UTC`;
}

/** An audit trail entry's time, to the second: `28 Nov, 04:27:12 UTC`. */
export function trailTimeText(ms: number): string {
  return `${TIME_OF_DAY.format(ms)} UTC`;
}
