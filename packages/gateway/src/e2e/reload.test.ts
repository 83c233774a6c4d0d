/**
 * Reloading a served gateway (GW-49, GW-50): under load from clients of both
 * eras, twenty reloads, valid and invalid, change the policy; no call fails
 * because of them, each call runs under exactly one policy version (the one
 * its result reports, whose rules it shows), and a config that fails never
 * takes effect. Upstreams added, removed and changed by a reload are
 * started and stopped, and connected clients are told the tools changed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getProvenance, provenanceClient } from '@ext/provenance/client';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../config/schema.js';
import { policyVersion } from '../reload/plan.js';
import { GATEWAY_META_KEY } from '../redact/tool-results.js';
import { childProcesses, serveV2 } from '../upstream/testing/servers.js';
import {
  closeAfter,
  closeAfterEach,
  connectClient,
  eraOptions,
  ERAS,
  filesystemUpstream,
  gatewayConfig,
  serveGateway,
  tempDir,
  watchToolList,
  type Era,
} from './support.js';

closeAfterEach();

/** The config of generation `n`: its rules cite `v<n>` as the source of every `echo` result. */
function generation(url: string, n: number): GatewayConfig {
  return gatewayConfig({
    upstreams: { echoes: { url } },
    policy: { echo: { provenance: { source: `v${String(n)}` } } },
    identity: { anonymous: true },
    store: 'memory',
  });
}

/** Configs a reload must refuse as a whole: a restart-only field changed, or a rule that does not compile. */
function refused(url: string, n: number): GatewayConfig {
  const base = generation(url, n);
  return n % 4 === 1
    ? { ...base, listen: { port: 1 } }
    : { ...base, policy: { echo: { allow: 'caller.scopes.exists(' } } };
}

interface Seen {
  readonly version: unknown;
  readonly source: string | undefined;
}

describe('reloading under load', () => {
  it('sixteen clients calling through twenty reloads: no failure, one policy per call, refused configs never in force', async () => {
    const upstream = await serveV2();
    closeAfter(() => upstream.close());
    const served = await serveGateway(generation(upstream.url, 0));
    const eras: Era[] = Array.from({ length: 16 }, (_, index) => ERAS[index % 2] as Era);
    const clients = await Promise.all(
      eras.map(async (era) => (await connectClient(served.url, { era, extensions: [provenanceClient()] })).client),
    );
    const versions = new Map<string, number>([[policyVersion(generation(upstream.url, 0), []), 0]]);
    const seen: Seen[] = [];
    const failures: unknown[] = [];
    let reloading = true;
    const callers = clients.map(async (client, index) => {
      for (let call = 0; reloading || call < 3; call++) {
        try {
          const result = await client.callTool('echo', { text: `${String(index)}.${String(call)}` });
          if (result.isError === true) failures.push(result);
          const gateway = result._meta?.[GATEWAY_META_KEY] as { policyVersion?: unknown } | undefined;
          seen.push({ version: gateway?.policyVersion, source: getProvenance(result)?.sources[0]?.source });
        } catch (error) {
          failures.push(error);
        }
      }
    });

    const outcomes: string[] = [];
    for (let n = 1; n <= 20; n++) {
      const before = served.gateway.policyVersion;
      if (n % 2 === 1) {
        await expect(served.gateway.reload(refused(upstream.url, n))).rejects.toThrow();
        expect(served.gateway.policyVersion).toBe(before);
        outcomes.push('refused');
      } else {
        const next = generation(upstream.url, n);
        const outcome = await served.gateway.reload(next);
        versions.set(outcome.version, n);
        expect(served.gateway.policyVersion).toBe(outcome.version);
        outcomes.push('taken up');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    reloading = false;
    await Promise.all(callers);

    expect(failures).toEqual([]);
    expect(outcomes.filter((outcome) => outcome === 'taken up')).toHaveLength(10);
    expect(seen.length).toBeGreaterThan(16 * 3);
    for (const { version, source } of seen) {
      const n = versions.get(String(version));
      expect(n, `a result under an unknown policy version ${String(version)}`).toBeDefined();
      expect(source).toBe(`v${String(n)}`);
    }
    // The reloads took effect while the clients called: results came under more than one policy.
    expect(new Set(seen.map((each) => each.version)).size).toBeGreaterThan(1);
    expect(versions.get(served.gateway.policyVersion)).toBe(20);
  });
});

describe('a call under way during a reload', () => {
  it.each(ERAS)(
    'finishes under the policy that admitted it; the next call runs under the new one (%s)',
    async (era) => {
      const upstream = await serveV2();
      closeAfter(async () => {
        upstream.releaseAll();
        await upstream.close();
      });
      const config = (n: number) =>
        gatewayConfig({
          upstreams: { echoes: { url: upstream.url } },
          policy: { '*': { provenance: { source: `v${String(n)}` } } },
          identity: { anonymous: true },
          store: 'memory',
        });
      const served = await serveGateway(config(0));
      const before = served.gateway.policyVersion;
      const { client } = await connectClient(served.url, { era, extensions: [provenanceClient()] });
      const slow = client.callTool('slow', { label: `under-way-${era}` });
      await upstream.whenStarted(`under-way-${era}`);
      const { version } = await served.gateway.reload(config(1));
      upstream.releaseAll();
      const finished = await slow;
      expect(finished._meta?.[GATEWAY_META_KEY]).toEqual({ policyVersion: before });
      expect(getProvenance(finished)?.sources[0]?.source).toBe('v0');
      const next = await client.callTool('echo', { text: 'after' });
      expect(next._meta?.[GATEWAY_META_KEY]).toEqual({ policyVersion: version });
      expect(getProvenance(next)?.sources[0]?.source).toBe('v1');
    },
  );
});

describe('upstreams a reload adds, removes and changes', () => {
  it.each(ERAS)('are started and stopped, and a connected client (%s) is told the tools changed', async (era) => {
    const first = await serveV2();
    const second = await serveV2();
    closeAfter(() => Promise.all([first.close(), second.close()]));
    const base = { identity: { anonymous: true }, store: 'memory' };
    const served = await serveGateway(gatewayConfig({ ...base, upstreams: { one: { url: first.url } } }));
    const watch = watchToolList();
    const sdk = new Client(
      { name: 'watcher', version: '0.0.0' },
      { ...eraOptions(era), listChanged: watch.listChanged },
    );
    await sdk.connect(new StreamableHTTPClientTransport(served.url));
    closeAfter(() => sdk.close());
    await (era === 'legacy' ? served.streamOpen : served.listenOpen);
    expect((await sdk.listTools()).tools.map((tool) => tool.name)).toContain('echo');

    // Added: a second upstream names every tool after its upstream.
    const outcome = await served.gateway.reload(
      gatewayConfig({ ...base, upstreams: { one: { url: first.url }, two: { url: second.url } } }),
    );
    expect(outcome.plan).toMatchObject({ added: ['two'], kept: ['one'], removed: [], changed: [] });
    const names = (await sdk.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['one__echo', 'two__echo']));
    expect(await sdk.callTool({ name: 'two__echo', arguments: { text: 'via two' } })).toMatchObject({
      content: [{ type: 'text', text: 'via two' }],
    });
    expect(await watch.changed).toEqual(expect.arrayContaining(['two__echo']));

    // Removed: the tools go with it; the one left keeps its names plain again.
    const removed = await served.gateway.reload(gatewayConfig({ ...base, upstreams: { two: { url: second.url } } }));
    expect(removed.plan).toMatchObject({ removed: ['one'], kept: ['two'] });
    expect((await sdk.listTools()).tools.map((tool) => tool.name)).toContain('echo');
    expect(second.echoed).toContain('via two');
  });

  it('a changed stdio upstream is restarted with its new settings, and its old process ends', async () => {
    const [rootA, rootB] = [await tempDir('reload-a'), await tempDir('reload-b')];
    await writeFile(join(rootB, 'note.txt'), 'from b');
    const base = { identity: { anonymous: true }, store: 'memory' };
    const served = await serveGateway(gatewayConfig({ ...base, upstreams: { files: filesystemUpstream(rootA) } }));
    expect(childProcesses(rootA)).toHaveLength(1);
    const { sdk } = await connectClient(served.url, { era: 'legacy' });

    const outcome = await served.gateway.reload(
      gatewayConfig({ ...base, upstreams: { files: filesystemUpstream(rootB) } }),
    );
    expect(outcome.plan).toMatchObject({ changed: ['files'], kept: [] });
    const read = await sdk.callTool({ name: 'read_text_file', arguments: { path: join(rootB, 'note.txt') } });
    expect(read).toMatchObject({ content: [{ type: 'text', text: 'from b' }] });
    await expect.poll(() => childProcesses(rootA), { timeout: 15_000 }).toEqual([]);
    expect(childProcesses(rootB)).toHaveLength(1);
  });
});
