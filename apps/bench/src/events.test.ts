import { describe, expect, it } from 'vitest';
import { benchEvents, eventsBenchCases, renderEvents, type EventsRow } from './events.js';

const row: EventsRow = {
  topology: 'one process, memory store',
  setup: 'watch',
  subscribers: 100,
  events: 50,
  eventsPerSec: 1234.5,
  deliveriesPerSec: 123_450,
  medianMs: 0.5,
  p99Ms: 2,
};

describe('event fan-out', () => {
  it('delivers every event to every subscriber once, in order, through watch() and through MCP clients', async () => {
    // benchEvents throws on a missing, repeated or out-of-order delivery, or a timeout.
    const rows = await benchEvents(
      eventsBenchCases(undefined),
      { subscribers: 5, events: 20, timeoutMs: 20_000 },
      () => undefined,
    );
    expect(rows.map((measured) => [measured.setup, measured.subscribers, measured.events])).toEqual([
      ['watch', 5, 20],
      ['mcp', 5, 20],
    ]);
    for (const measured of rows) expect(measured.deliveriesPerSec).toBeCloseTo(measured.eventsPerSec * 5);
  });

  it('says why the Redis rows are missing when REDIS_URL is unset', () => {
    const section = renderEvents([row], undefined);
    expect(section.title).toBe('Events: fan-out to 100 subscribers');
    expect(section.markdown).toContain(
      '| one process, memory store | in-process `watch()` (no transport) | 1,235 | 123,450 | 500 µs | 2.00 ms |',
    );
    expect(section.markdown).toContain('`REDIS_URL` was unset');
    expect(renderEvents([row], 'redis://127.0.0.1:6390').markdown).not.toContain('`REDIS_URL` was unset');
  });
});
