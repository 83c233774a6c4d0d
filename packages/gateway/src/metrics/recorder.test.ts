// The recorder onto a gateway's registry (GW-37), read back through a real Prometheus text-format parser.
import { describe, expect, it } from 'vitest';
import { gatewayRecorder, noopRecorder } from './recorder.js';
import { exposition, gatewayMetrics } from './registry.js';
import { readScrape } from './testing.js';
import { UpstreamStates } from './upstream-states.js';

function gateway(upstreams: readonly string[] = ['files'], pendingApprovals?: () => number) {
  const states = new UpstreamStates();
  const metrics = gatewayMetrics({ states, upstreams: () => upstreams, pendingApprovals });
  return { states, metrics, recorder: gatewayRecorder(states, metrics.series) };
}

const CALL = { upstream: 'files', tool: 'write_file', gatewaySeconds: 0.004, upstreamSeconds: 0.25 } as const;

describe('the gateway recorder', () => {
  it('counts calls by outcome and category, and times the whole call, the gateway’s part and the upstream’s', async () => {
    const { metrics, recorder } = gateway();
    recorder.callFinished({ ...CALL, outcome: 'ok', category: '', errorType: '' });
    recorder.callFinished({ ...CALL, outcome: 'error', category: 'tool_error', errorType: 'tool_error' });
    recorder.callFinished({ ...CALL, outcome: 'error', category: 'tool_error', errorType: 'tool_error' });
    recorder.upstreamAnswered({ upstream: 'files', tool: 'write_file', seconds: 0.25, errorType: '' });
    const scrape = await readScrape(await exposition(metrics));

    const calls = { upstream: 'files', gen_ai_tool_name: 'write_file' };
    expect(scrape.value('mcp_gateway_tool_calls_total', { ...calls, outcome: 'ok', error_category: '' })).toBe(1);
    expect(
      scrape.value('mcp_gateway_tool_calls_total', { ...calls, outcome: 'error', error_category: 'tool_error' }),
    ).toBe(2);
    const whole = scrape.sample('mcp_server_operation_duration_seconds', {
      mcp_method_name: 'tools/call',
      gen_ai_tool_name: 'write_file',
      error_type: '',
    });
    expect(whole.sum).toBeCloseTo(0.254);
    // Per the conventions' buckets: 0.254 s is above 0.2 and within 0.5.
    expect(whole.buckets).toMatchObject({ '0.2': 0, '0.5': 1, '+Inf': 1 });
    const added = scrape.sample('mcp_gateway_added_duration_seconds', calls);
    expect([added.count, added.sum]).toEqual([3, expect.closeTo(0.012)]);
    expect(added.buckets).toMatchObject({ '0.0025': 0, '0.005': 3 });
    const upstream = scrape.sample('mcp_client_operation_duration_seconds', {
      mcp_method_name: 'tools/call',
      ...calls,
      error_type: '',
    });
    expect(upstream.count).toBe(1);
  });

  it('counts refusals, confirmations, approvals, reconnects, retries and store errors under their labels', async () => {
    const { metrics, recorder } = gateway(['files'], () => 2);
    recorder.refused('quota', CALL);
    recorder.refused('rate_limit', CALL);
    recorder.refused('rate_limit', CALL);
    recorder.confirmationRequested('write_file');
    recorder.confirmationDecided('write_file', 'declined');
    recorder.approvalRequested('write_file');
    recorder.approvalDecided('write_file', 'denied');
    recorder.reconnected('files');
    recorder.retried('files');
    recorder.retried('files');
    recorder.storeError('timeout');
    const scrape = await readScrape(await exposition(metrics));

    const tool = { gen_ai_tool_name: 'write_file' };
    const refusals = { upstream: 'files', ...tool };
    expect(scrape.value('mcp_gateway_limit_refusals_total', { ...refusals, limit: 'quota' })).toBe(1);
    expect(scrape.value('mcp_gateway_limit_refusals_total', { ...refusals, limit: 'rate_limit' })).toBe(2);
    expect(scrape.value('mcp_gateway_confirmations_requested_total', tool)).toBe(1);
    expect(scrape.value('mcp_gateway_confirmations_decided_total', { ...tool, decision: 'declined' })).toBe(1);
    expect(scrape.value('mcp_gateway_approvals_requested_total', tool)).toBe(1);
    expect(scrape.value('mcp_gateway_approvals_decided_total', { ...tool, decision: 'denied' })).toBe(1);
    expect(scrape.value('mcp_gateway_approvals_pending', {})).toBe(2);
    expect(scrape.value('mcp_gateway_upstream_reconnects_total', { upstream: 'files' })).toBe(1);
    expect(scrape.value('mcp_gateway_upstream_retries_total', { upstream: 'files' })).toBe(2);
    expect(scrape.value('mcp_gateway_store_errors_total', { reason: 'timeout' })).toBe(1);
  });

  it('shows each upstream the gateway has now: up, its breaker’s state, and counters from 0', async () => {
    let upstreams = ['files', 'web'];
    const states = new UpstreamStates();
    const metrics = gatewayMetrics({ states, upstreams: () => upstreams });
    const recorder = gatewayRecorder(states, metrics.series);
    recorder.upstreamState('files', true);
    recorder.upstreamState('web', true);
    recorder.breakerState('web', 'open');
    let scrape = await readScrape(await exposition(metrics));

    // An open breaker fails the upstream's calls at once: it counts as down.
    expect(scrape.value('mcp_gateway_upstream_up', { upstream: 'files' })).toBe(1);
    expect(scrape.value('mcp_gateway_upstream_up', { upstream: 'web' })).toBe(0);
    for (const [state, value] of [
      ['closed', 0],
      ['open', 1],
      ['half_open', 0],
    ] as const)
      expect(scrape.value('mcp_gateway_upstream_breaker_state', { upstream: 'web', state })).toBe(value);
    expect(scrape.value('mcp_gateway_upstream_reconnects_total', { upstream: 'web' })).toBe(0);
    expect(scrape.value('mcp_gateway_upstream_retries_total', { upstream: 'files' })).toBe(0);

    // A reload removed `web`: its gauges go with it.
    upstreams = ['files'];
    recorder.upstreamState('files', false);
    scrape = await readScrape(await exposition(metrics));
    expect(scrape.family('mcp_gateway_upstream_up').samples).toEqual([{ labels: { upstream: 'files' }, value: 0 }]);
  });

  it('serves the process’s own series beside the gateway’s', async () => {
    const scrape = await readScrape(await exposition(gateway().metrics));
    expect(scrape.family('process_cpu_user_seconds_total').type).toBe('counter');
    expect(scrape.family('nodejs_eventloop_lag_seconds').type).toBe('gauge');
    expect(scrape.family('nodejs_heap_size_used_bytes').type).toBe('gauge');
    // Only the event loop's figures may have no sample yet; every other series holds a number.
    expect(scrape.nan.filter((name) => !name.startsWith('nodejs_eventloop_lag_'))).toEqual([]);
  });

  it('keeps two gateways in one process apart', async () => {
    const first = gateway();
    const second = gateway();
    first.recorder.reconnected('files');
    const one = await readScrape(await exposition(first.metrics));
    const other = await readScrape(await exposition(second.metrics));
    expect(one.value('mcp_gateway_upstream_reconnects_total', { upstream: 'files' })).toBe(1);
    expect(other.value('mcp_gateway_upstream_reconnects_total', { upstream: 'files' })).toBe(0);
  });

  it('keeps the upstreams’ states without metrics, and the no-op recorder keeps nothing', () => {
    const states = new UpstreamStates();
    const recorder = gatewayRecorder(states, undefined);
    recorder.upstreamState('files', true);
    recorder.breakerState('files', 'half_open');
    recorder.callFinished({ ...CALL, outcome: 'ok', category: '', errorType: '' });
    expect(states.of('files')).toEqual({ up: true, breaker: 'half_open' });
    noopRecorder.upstreamState('web', true);
    expect(states.of('web')).toEqual({ up: false, breaker: 'closed' });
  });
});
