// An upstream's health tells its listener when the upstream starts answering and when an outage starts, once each.
import { ExtensionError } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { describe, expect, it } from 'vitest';
import { UpstreamHealth } from './health.js';

const fault = () => new ExtensionError('transient', 'UPSTREAM_UNAVAILABLE', 'gone', { retryAfterSeconds: 5 });

describe('UpstreamHealth', () => {
  it('tells each change of state once, however many answers and faults come in between', () => {
    const told: boolean[] = [];
    const health = new UpstreamHealth('files', silentLogger, Date.now, (up) => told.push(up));
    health.recovered();
    health.recovered();
    health.failed(fault());
    health.failed(fault());
    health.recovered();
    expect(told).toEqual([true, false, true]);
  });

  it('an upstream whose first connect fails is down from the start', () => {
    const told: boolean[] = [];
    const health = new UpstreamHealth('files', silentLogger, Date.now, (up) => told.push(up));
    health.failed(fault());
    expect(told).toEqual([false]);
  });
});
