/**
 * The unmodified `@modelcontextprotocol/server-filesystem` (over stdio)
 * behind a gateway served over Streamable HTTP: writes need a person's
 * approval with the config's message, a retried write runs once, a quota
 * stops a flood, results cite the configured source, and an upstream that
 * dies or refuses reaches the client as a structured or readable error.
 * What happened upstream is read from the disk, not through the gateway.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { confirmationClient, callWithConfirmation, type ConfirmationRequest } from '@ext/confirmation/client';
import { costClient, getCostInfo } from '@ext/cost/client';
import { errorsClient } from '@ext/errors/client';
import { getReplayInfo, idempotencyClient, idempotencyMeta } from '@ext/idempotency/client';
import { getProvenance, provenanceClient } from '@ext/provenance/client';
import { describe, expect, it } from 'vitest';
import { childPid } from '../upstream/testing/servers.js';
import {
  closeAfterEach,
  connectClient,
  ERAS,
  errorOf,
  filesystemUpstream,
  gatewayConfig,
  serveGateway,
  tempDir,
  textOf,
  type ConnectedClient,
  type Era,
  type ServedGateway,
} from './support.js';

closeAfterEach();

const QUOTA = 3;
const SOURCE = 'project files';

interface FilesGateway extends ServedGateway {
  /** The only folder the filesystem server may touch. */
  readonly root: string;
}

async function filesGateway(): Promise<FilesGateway> {
  const root = await tempDir('files');
  const config = gatewayConfig({
    upstreams: { files: filesystemUpstream(root) },
    policy: {
      write_file: { confirm: { message: 'Write {path}?' } },
      list_directory: { cost: { units: 1, unit: 'listings', quota: { limit: QUOTA, windowSeconds: 3600 } } },
      'read_*': { provenance: { source: SOURCE } },
    },
    identity: { anonymous: true },
    store: 'memory',
  });
  return { ...(await serveGateway(config)), root };
}

async function ourClient(served: ServedGateway, era: Era): Promise<ConnectedClient> {
  return connectClient(served.url, {
    era,
    extensions: [errorsClient(), confirmationClient(), idempotencyClient(), costClient(), provenanceClient()],
  });
}

/** Approves every confirmation, remembering what was asked. */
function approver(): { asked: ConfirmationRequest[]; confirm: (request: ConfirmationRequest) => Promise<boolean> } {
  const asked: ConfirmationRequest[] = [];
  return {
    asked,
    confirm: (request) => {
      asked.push(request);
      return Promise.resolve(true);
    },
  };
}

describe.each(ERAS)('server-filesystem behind the gateway (%s)', (era) => {
  it('write_file waits for approval, and the question names the path', async () => {
    const served = await filesGateway();
    const { client } = await ourClient(served, era);
    const path = join(served.root, 'notes.txt');
    const { asked, confirm } = approver();

    const written = await callWithConfirmation(client, 'write_file', { path, content: 'hello' }, { confirm });
    expect(written.isError).toBeFalsy();
    expect(asked).toEqual([expect.objectContaining({ tool: 'write_file', message: `Write ${path}?` })]);
    expect(await readFile(path, 'utf8')).toBe('hello');

    const declined = await callWithConfirmation(
      client,
      'write_file',
      { path, content: 'overwritten' },
      { confirm: () => Promise.resolve(false) },
    );
    expect(errorOf(declined).code).toBe('CONFIRMATION_DECLINED');
    expect(await readFile(path, 'utf8')).toBe('hello');
  });

  it('a write retried with the same idempotency key runs once, and the person is asked once', async () => {
    const served = await filesGateway();
    const { client } = await ourClient(served, era);
    const path = join(served.root, 'order.txt');
    const args = { path, content: 'order #1' };
    const person = approver();
    const options = { confirm: person.confirm, meta: idempotencyMeta('write-order-0001') };

    const first = await callWithConfirmation(client, 'write_file', args, options);
    expect(first.isError).toBeFalsy();
    expect(await readFile(path, 'utf8')).toBe('order #1');
    // Changed behind the gateway's back: a second execution would write the file again.
    await writeFile(path, 'changed since');

    const retried = await callWithConfirmation(client, 'write_file', args, options);
    expect(retried.isError).toBeFalsy();
    expect(getReplayInfo(retried)).toMatchObject({ idempotency_key: 'write-order-0001', was_replay: true });
    expect(textOf(retried)).toBe(textOf(first));
    expect(await readFile(path, 'utf8')).toBe('changed since');
    expect(person.asked).toHaveLength(1);
  });

  it(`a quota of ${QUOTA} listings stops a flood with rate_limited and retry_after_seconds`, async () => {
    const served = await filesGateway();
    const { client } = await ourClient(served, era);
    const results = [];
    for (let index = 0; index < QUOTA + 4; index++) {
      results.push(await client.callTool('list_directory', { path: served.root }));
    }
    const passed = results.filter((result) => result.isError !== true);
    expect(passed).toHaveLength(QUOTA);
    expect(getCostInfo(passed[0])?.quota).toMatchObject({ limit: QUOTA, used: 1, remaining: QUOTA - 1 });
    for (const refused of results.slice(QUOTA)) {
      const error = errorOf(refused);
      expect(error.category).toBe('rate_limited');
      expect(error.retry_after_seconds).toBeGreaterThan(0);
      expect(error.retry_after_seconds).toBeLessThanOrEqual(3600);
    }
  });

  it('results of the read_* tools cite the configured source', async () => {
    const served = await filesGateway();
    const { client } = await ourClient(served, era);
    const path = join(served.root, 'cited.txt');
    await writeFile(path, 'a fact');

    const read = await client.callTool('read_text_file', { path });
    expect(textOf(read)).toBe('a fact');
    expect(getProvenance(read)?.sources).toEqual([expect.objectContaining({ source: SOURCE, confidence: 'exact' })]);
    // Tools the policy gives no source cite nothing.
    const listed = await client.callTool('list_directory', { path: served.root });
    expect(getProvenance(listed)).toBeUndefined();
  });

  it('writing outside the allowed folder: the upstream’s refusal reaches the client readable', async () => {
    const served = await filesGateway();
    const { client } = await ourClient(served, era);
    const outside = join(await tempDir('outside'), 'escape.txt');

    const refused = await callWithConfirmation(client, 'write_file', { path: outside, content: 'x' }, approver());
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/outside allowed directories/i);
    await expect(readFile(outside, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a killed upstream that cannot start again gives a transient error with retry_after_seconds', async () => {
    const served = await filesGateway();
    const { client } = await ourClient(served, era);
    const listed = await client.callTool('list_directory', { path: served.root });
    expect(listed.isError).toBeFalsy();

    // The server refuses to start without its folder: the gateway's restart of it fails.
    process.kill(childPid(served.root), 'SIGKILL');
    await rm(served.root, { recursive: true, force: true });
    const failed = await client.callTool('read_text_file', { path: join(served.root, 'any.txt') });
    const error = errorOf(failed);
    expect(error).toMatchObject({ category: 'transient', code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.retry_after_seconds).toBeGreaterThan(0);
    await mkdir(served.root);
  });
});
