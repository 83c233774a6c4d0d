/**
 * attach_image over real HTTP with real clients, fed references a hostile
 * client makes up: unknown, malformed, another caller's, another server's.
 * Each is refused with the data-references error for it, naming the
 * argument, and nothing is attached; never an INTERNAL_ERROR.
 */
import { silentLogger } from '@ext/core/kit';
import { type ExtendedClient, type StructuredError, type ToolResult } from '@ext/core';
import { dataReferencesClient } from '@ext/data-references/client';
import { getStructuredError } from '@ext/errors/client';
import { binaryInput, multimodalClient } from '@ext/multimodal/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection, type Era } from '../client/connect.js';
import { dig } from '../tour/explain.js';
import { PIXEL_PNG } from '../e2e/isolation-support.js';
import { startHttpServer, type RunningHttpServer } from '../server/node-http.js';

const halves = () => [dataReferencesClient(), multimodalClient({ mimeTypes: ['image/*'], minOutOfBandBytes: 0 })];

function refusal(result: ToolResult): StructuredError | undefined {
  expect(result.isError, `expected a refusal, got ${JSON.stringify(result).slice(0, 400)}`).toBe(true);
  return getStructuredError(result);
}

describe.each(['modern', 'legacy'] as const satisfies readonly Era[])(
  'attach_image with references a client made up, on the %s era',
  (era) => {
    let running: RunningHttpServer;
    let alice: Connection;
    let bob: Connection;
    let serverName: string;

    beforeAll(async () => {
      running = await startHttpServer({ port: 0, logger: silentLogger });
      alice = await connect(running.as('alice'), { era, extensions: halves() });
      bob = await connect(running.as('bob'), { era, extensions: halves() });
      serverName = running.origin?.serverName ?? '';
      expect(serverName).not.toBe('');
    });

    afterAll(async () => {
      await alice.close();
      await bob.close();
      await running.close();
    });

    const client = (connection: Connection): ExtendedClient => {
      if (connection.extended === undefined) throw new Error('the connection has no extensions attached');
      return connection.extended;
    };

    async function ticket(): Promise<string> {
      const created = await client(alice).callTool('create_ticket', { title: 'Screenshot of the bug' });
      return String(dig(created.structuredContent, 'ticket', 'id'));
    }

    async function attachments(id: string): Promise<unknown> {
      const read = await client(alice).callTool('get_ticket', { id });
      return dig(read.structuredContent, 'ticket', 'attachments');
    }

    const ownReference = (refId: string) => ({
      ref_id: refId,
      origin_server: serverName,
      mime_type: 'image/png',
      size_bytes: PIXEL_PNG.length,
    });

    it('refuses a reference id this server never issued as REFERENCE_NOT_FOUND naming the argument', async () => {
      const id = await ticket();
      for (const refId of ['ref-AAAAAAAAAAAAAAAAAAAAAA', '../../etc/passwd', 'x', 'ref-\u0000\u001b[2J']) {
        const error = refusal(await client(alice).callTool('attach_image', { id, image: ownReference(refId) }));
        expect(error, JSON.stringify(refId)).toMatchObject({
          code: 'REFERENCE_NOT_FOUND',
          category: 'invalid_input',
          details: { pointer: '/arguments/image' },
        });
      }
      expect(await attachments(id)).toBeUndefined();
    });

    it('refuses a malformed reference as INVALID_INPUT naming the faulty field', async () => {
      const id = await ticket();
      const cases: [Record<string, unknown>, string][] = [
        [ownReference(`ref-${'A'.repeat(5000)}`), 'ref_id'],
        [{ ...ownReference('ref-AAAAAAAAAAAAAAAAAAAAAA'), access_url: 'not a url' }, 'access_url'],
        [
          { ...ownReference('ref-AAAAAAAAAAAAAAAAAAAAAA'), checksum: { algorithm: 'sha256', value: 'zz' } },
          'checksum.value',
        ],
      ];
      for (const [image, field] of cases) {
        const error = refusal(await client(alice).callTool('attach_image', { id, image }));
        expect(error, field).toMatchObject({
          code: 'INVALID_INPUT',
          category: 'invalid_input',
          details: { field, pointer: `/arguments/image/${field.replace('.', '/')}` },
        });
      }
      expect(await attachments(id)).toBeUndefined();
    });

    it("refuses another caller's upload as REFERENCE_NOT_FOUND, and its owner can still attach it", async () => {
      const id = await ticket();
      const image = await binaryInput(client(alice), PIXEL_PNG, { mimeType: 'image/png' });
      expect(dig(image, 'ref_id')).toBeTypeOf('string');
      const error = refusal(await client(bob).callTool('attach_image', { id, image }));
      expect(error).toMatchObject({ code: 'REFERENCE_NOT_FOUND', details: { pointer: '/arguments/image' } });
      expect(await attachments(id)).toBeUndefined();
      const attached = await client(alice).callTool('attach_image', { id, image });
      expect(attached.isError).not.toBe(true);
      expect(dig(attached.structuredContent, 'attachment', 'bytes')).toBe(PIXEL_PNG.length);
    });

    it("refuses another server's reference with the data-references error, naming the argument, never INTERNAL_ERROR", async () => {
      const id = await ticket();
      const foreign = [
        {
          ref_id: 'ref-elsewhere',
          origin_server: 'elsewhere',
          mime_type: 'image/png',
          size_bytes: 68,
          access_url: 'https://files.example.com/ref-elsewhere?sig=x',
        },
        { ref_id: 'ref-elsewhere', origin_server: 'elsewhere', mime_type: 'image/png' },
        {
          ref_id: 'ref-elsewhere',
          origin_server: 'elsewhere',
          mime_type: 'image/png',
          access_url: 'file:///etc/passwd',
        },
      ];
      for (const image of foreign) {
        const error = refusal(await client(alice).callTool('attach_image', { id, image }));
        expect(error?.code, JSON.stringify(image)).not.toBe('INTERNAL_ERROR');
        expect(error, JSON.stringify(image)).toMatchObject({
          code: 'ORIGIN_NOT_ALLOWED',
          category: 'permanent',
          details: { pointer: '/arguments/image', ref_id: 'ref-elsewhere' },
        });
      }
      expect(await attachments(id)).toBeUndefined();
    });
  },
);
