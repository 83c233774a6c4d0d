import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../contract/errors.js';
import { StoreAvailability } from './store-availability.js';

function capture() {
  const lines: { message: string; details: Record<string, unknown> | undefined }[] = [];
  return {
    lines,
    logger: { warn: (message: string, details?: Record<string, unknown>) => lines.push({ message, details }) },
  };
}

describe('StoreAvailability', () => {
  it('logs an outage once when it starts and once when it ends, however many calls fail', () => {
    const { logger, lines } = capture();
    let now = 1000;
    const availability = new StoreAvailability('TestStore', logger, () => now);
    availability.recovered();
    expect(lines).toEqual([]);
    for (let index = 0; index < 5; index++) {
      const error = new StoreUnavailableError({ reason: 'timeout', cause: new Error('no answer') });
      expect(availability.failed(error)).toBe(error);
    }
    expect(availability.outage).toEqual({ reason: 'timeout', since: 1000 });
    now = 3500;
    availability.recovered();
    availability.recovered();
    expect(availability.outage).toBeUndefined();
    expect(lines).toEqual([
      { message: 'TestStore: store unavailable', details: { reason: 'timeout', error: 'Error: no answer' } },
      { message: 'TestStore: store available again', details: { reason: 'timeout', unavailable_ms: 2500 } },
    ]);
    availability.failed(new StoreUnavailableError({ reason: 'unreachable' }));
    expect(lines).toHaveLength(3);
  });
});
