/**
 * The gateway's own rules, in CEL, over real clients and a real upstream on
 * both eras: `allow` decides who sees and calls a tool, `confirm.when` asks a
 * person only for the calls it matches, and `cost.units` prices a call from
 * its arguments so a quota caps spend.
 */
import { ERRORS_ID, TOOL_FAILURE_KEY } from '@ext/errors';
import { errorsClient } from '@ext/errors/client';
import { describe, expect, it } from 'vitest';
import { serveV2 } from '../upstream/testing/servers.js';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  ERAS,
  errorOf,
  gatewayConfig,
  serveGateway,
  textOf,
  type Era,
} from './support.js';

closeAfterEach();

const WRITER_KEY = 'key-for-ada-0123456789abcdef';
const READER_KEY = 'key-for-bob-0123456789abcdef';

async function gatewayWith(policy: Record<string, unknown>) {
  const upstream = await serveV2();
  closeAfter(() => upstream.close());
  const served = await serveGateway(
    gatewayConfig({
      upstreams: { notes: { url: upstream.url, protocol: '2026-07-28', timeoutMs: 5000 } },
      policy,
      identity: {
        apiKeys: {
          [WRITER_KEY]: { principal: 'ada', scopes: ['notes:write'] },
          [READER_KEY]: { principal: 'bob', scopes: ['notes:read'] },
        },
      },
      store: 'memory',
    }),
  );
  const connect = async (key: string, era: Era, elicit?: () => Promise<boolean>) =>
    (
      await connectClient(served.url, {
        era,
        extensions: [errorsClient()],
        headers: { authorization: `Bearer ${key}` },
        ...(elicit === undefined ? {} : { elicit }),
      })
    ).client;
  return { upstream, served, connect };
}

/** The names of the tools a list holds, sorted. */
const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name).sort();

describe('allow: who may use a tool (GW-27)', () => {
  it.each(ERAS)('lists and runs the tool for a caller the rule lets through, and for no one else (%s)', async (era) => {
    const { upstream, connect } = await gatewayWith({ echo: { allow: '"notes:write" in scopes && principal != ""' } });
    const ada = await connect(WRITER_KEY, era);
    const bob = await connect(READER_KEY, era);
    expect(names(await ada.listTools())).toContain('echo');
    expect(names(await bob.listTools())).not.toContain('echo');
    expect(names(await bob.listTools())).toContain('slow');

    expect(textOf(await ada.callTool('echo', { text: 'from ada' }))).toBe('from ada');
    const reached = upstream.authorizations.length;
    const refused = errorOf(await bob.callTool('echo', { text: 'from bob' }));
    expect(refused.code).toBe('ACCESS_DENIED');
    expect(refused.details).toMatchObject({ tool: 'echo', rule: 'policy.echo.allow' });
    expect(upstream.authorizations.length).toBe(reached);
  });

  it('judges a rule that reads the arguments at the call, and denies when it cannot be judged', async () => {
    // `args.mode` is no key of these calls: `false || <error>` cannot be judged, and is denied.
    const { connect } = await gatewayWith({ echo: { allow: 'args.text.startsWith("ok") || args.mode == "admin"' } });
    const bob = await connect(READER_KEY, 'modern');
    expect(names(await bob.listTools())).toContain('echo');
    expect(textOf(await bob.callTool('echo', { text: 'ok then' }))).toBe('ok then');
    expect(errorOf(await bob.callTool('echo', { text: 'not ok' })).code).toBe('ACCESS_DENIED');
  });
});

describe('confirm.when: a person is asked only for the calls a condition matches (GW-27)', () => {
  it.each(ERAS)(
    'runs other calls unasked, and asks (or refuses, with no one to ask) for matching ones (%s)',
    async (era) => {
      const { upstream, connect } = await gatewayWith({
        echo: { confirm: { when: 'args.text.startsWith("delete")', message: 'Really {text}?' } },
      });
      const asked: string[] = [];
      const nobody = await connect(WRITER_KEY, era);
      expect(textOf(await nobody.callTool('echo', { text: 'read the notes' }))).toBe('read the notes');
      const reached = upstream.authorizations.length;
      expect(errorOf(await nobody.callTool('echo', { text: 'delete everything' })).code).toBe('CONFIRMATION_REQUIRED');
      expect(upstream.authorizations.length).toBe(reached);

      const person = await connect(WRITER_KEY, era, () => {
        asked.push('asked');
        return Promise.resolve(true);
      });
      expect(textOf(await person.callTool('echo', { text: 'delete one note' }))).toBe('delete one note');
      expect(textOf(await person.callTool('echo', { text: 'list notes' }))).toBe('list notes');
      expect(asked).toEqual(['asked']);
    },
  );
});

describe('cost.units from the arguments: a quota caps spend (GW-27)', () => {
  it('charges each call what its arguments say, and refuses one that would pass the quota', async () => {
    const { connect } = await gatewayWith({
      echo: {
        cost: { units: 'double(size(args.text))', unit: 'characters', quota: { limit: 10, windowSeconds: 3600 } },
      },
    });
    const ada = await connect(WRITER_KEY, 'modern');
    expect(textOf(await ada.callTool('echo', { text: 'abcdef' }))).toBe('abcdef');
    expect(errorOf(await ada.callTool('echo', { text: 'ghijkl' })).code).toBe('QUOTA_EXHAUSTED');
    expect(textOf(await ada.callTool('echo', { text: 'ghij' }))).toBe('ghij');
    expect(errorOf(await ada.callTool('echo', { text: 'k' })).code).toBe('QUOTA_EXHAUSTED');
  });

  it.each(ERAS)(
    'says the refusal as the draft SEP-3313 ToolFailure to a client without our errors extension, and relays an upstream failure as written (GW-54, %s)',
    async (era) => {
      const { served } = await gatewayWith({
        echo: { cost: { units: 'double(size(args.text))', quota: { limit: 4, windowSeconds: 3600 } } },
      });
      const { client } = await connectClient(served.url, { era, headers: { authorization: `Bearer ${WRITER_KEY}` } });
      expect(textOf(await client.callTool('echo', { text: 'abcd' }))).toBe('abcd');
      const refused = await client.callTool('echo', { text: 'e' });
      expect(refused.isError).toBe(true);
      expect(refused._meta?.[ERRORS_ID]).toBeUndefined();
      const failure = refused._meta?.[TOOL_FAILURE_KEY] as Record<string, unknown> | undefined;
      expect(failure).toMatchObject({ class: 'reliability', code: 'quota_exhausted', retryable: true });
      expect(failure?.correlationId).toMatch(/^[0-9a-f]{16}$/);
      expect(failure?.retryNotBefore).toBeGreaterThan(Date.now());
      // The upstream's own failed result carries no draft key, and the gateway adds none.
      const upstreamFailure = await client.callTool('fail', {});
      expect(upstreamFailure.isError).toBe(true);
      expect(upstreamFailure._meta?.[TOOL_FAILURE_KEY]).toBeUndefined();
    },
  );

  it('refuses a call whose arguments the expression cannot price, rather than run it for free', async () => {
    const { connect } = await gatewayWith({
      echo: { cost: { units: 'double(args.text)', quota: { limit: 10, windowSeconds: 60 } } },
    });
    const ada = await connect(WRITER_KEY, 'legacy');
    expect(textOf(await ada.callTool('echo', { text: '3' }))).toBe('3');
    const refused = errorOf(await ada.callTool('echo', { text: 'three' }));
    expect(refused.code).toBe('COST_UNITS_UNREADABLE');
    expect(refused.details).toMatchObject({ rule: 'policy.echo.cost.units' });
  });
});

describe('a bad expression stops the gateway naming the field and the column (GW-27)', () => {
  it.each([
    ['allow', { allow: 'scopes.exists(s, s == "x") &&' }, 'policy.echo.allow'],
    ['confirm.when', { confirm: { when: 'args.text + 1' } }, 'policy.echo.confirm.when'],
    ['cost.units', { cost: { units: 'args.text.startsWith("x")' } }, 'policy.echo.cost.units'],
  ])('%s', (_name, policy, field) => {
    expect(() =>
      gatewayConfig({
        upstreams: { notes: { url: 'http://127.0.0.1:9/mcp' } },
        policy: { echo: policy },
        store: 'memory',
      }),
    ).toThrow(new RegExp(`: ${field.replaceAll('.', '\\.')} is not a valid condition \\(column \\d+\\)`));
  });
});
