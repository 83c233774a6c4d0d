/**
 * Step 21 of the tour: approval when nobody sits at the client. gateway.yaml
 * says an operator approves move_file. An agent whose client can neither ask
 * its user nor speak the confirmation extension moves a file: the gateway
 * holds the call and answers CONFIRMATION_PENDING with the request's id and
 * a link for a person; the operator approves (here through the library's
 * `approvals.desk.decide`, as the approvals page and the CLI do); the
 * agent's retry runs the move, once.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryStore } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { listen } from '@ext/core/sdk-v2/server';
import { getStructuredError } from '@ext/errors/client';
import { createGateway, loadConfig, type Gateway } from '@ext/gateway';
import { connect } from '../client/connect.js';
import { compact, dig } from './explain.js';
import { servingFolder } from './gateway.js';
import { expect, ok, print, row } from './output.js';
import type { TourTarget } from './target.js';

const MOVE = { source: 'draft.md', destination: 'final.md' };

/** The agent's move, held; then the operator's decision; then the retry that runs it. */
async function heldMove(tour: TourTarget, gateway: Gateway, folder: string): Promise<void> {
  const server = await listen(gateway.http, { port: 0, host: '127.0.0.1', logger: silentLogger });
  const connection = await connect({ kind: 'http', url: server.url }, { era: tour.era, name: 'unattended-agent' });
  try {
    const desk = gateway.approvals?.desk;
    expect(desk !== undefined, 'gateway.yaml has no approvals section');
    const args = { source: join(folder, MOVE.source), destination: join(folder, MOVE.destination) };
    row(
      'agent -> gateway',
      `tools/call move_file ${MOVE.source} -> ${MOVE.destination} (no elicitation, no confirmation extension)`,
    );
    const held = await connection.client.callTool({ name: 'move_file', arguments: args });
    const pending = getStructuredError(held);
    expect(pending?.code === 'CONFIRMATION_PENDING', `the move was not held: ${compact(held)}`);
    const id = String(dig(pending.details, 'approval_id'));
    row(
      'gateway -> agent',
      `${pending.code} (${pending.category}), retry_after_seconds ${String(pending.retry_after_seconds)}, approval ${id}`,
    );
    row(
      '',
      'a person decides it on the approvals page at /approvals, from a signed webhook link, or with `mcp-ext-gateway approvals approve`',
    );
    expect((await readdir(folder)).includes(MOVE.source), 'the held move ran');

    const decided = await desk.decide(id, {
      approve: true,
      by: 'operator (the tour)',
      reason: 'release notes are final',
    });
    row('operator', `approves: ${decided.state} by ${String(decided.decided_by)} ("${String(decided.reason)}")`);
    const done = await connection.client.callTool({ name: 'move_file', arguments: args });
    expect(done.isError !== true, `the approved move failed: ${compact(done)}`);
    row('agent -> gateway', 'the same move_file again: it attaches to the approved request and runs');
    const files = await readdir(folder);
    row('on disk', files.join(', '));
    expect(files.includes(MOVE.destination) && !files.includes(MOVE.source), 'the file was not moved');
    const again = getStructuredError(await connection.client.callTool({ name: 'move_file', arguments: args }));
    row('agent -> gateway', `once more: ${String(again?.code)}; an approval runs one call, never two`);
    expect(again?.code === 'CONFIRMATION_PENDING', 'the approval ran a second call');
  } finally {
    await connection.close();
    await server.close();
  }
}

/** Step 21: the gateway from `config` on a temporary folder holding a draft. */
export async function operatorApprovalStep(tour: TourTarget, config: URL): Promise<void> {
  const loaded = await loadConfig(fileURLToPath(config));
  const folder = await mkdtemp(join(tmpdir(), 'gateway-approval-'));
  try {
    await writeFile(join(folder, MOVE.source), '# Release notes\n');
    const gateway = await createGateway(servingFolder(loaded.config, dirname(loaded.path), folder), {
      manifests: loaded.manifests,
      store: new MemoryStore(),
      logger: silentLogger,
    });
    try {
      await heldMove(tour, gateway, folder);
    } finally {
      await gateway.close();
    }
    print();
    ok('nobody sat at the client: the gateway held the move, an operator approved it, and it ran once.');
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
