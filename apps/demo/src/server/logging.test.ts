/**
 * The tracker's logs: pino JSON lines through core's `pinoLogger`. A tool
 * that throws something unexpected is answered as INTERNAL_ERROR; the client
 * gets a correlation id, and the server logs the cause once with that id,
 * so a user's report can be matched to the log line.
 */
import { Writable } from 'node:stream';
import { getStructuredError } from '@ext/errors/client';
import { describe, expect, it } from 'vitest';
import { connect, type Era } from '../client/connect.js';
import { createDemoLogger } from './logging.js';
import { startHttpServer } from './node-http.js';

/** A pino destination keeping each record, parsed. */
function recordSink(): { destination: Writable; records: Record<string, unknown>[] } {
  const records: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      for (const line of String(chunk).split('\n'))
        if (line.trim() !== '') records.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { destination, records };
}

describe.each(['modern', 'legacy'] as const satisfies readonly Era[])(
  "internal errors in the tracker's log (%s era)",
  (era) => {
    it('logs the cause once, as an error line carrying the correlation id the client received and the stack', async () => {
      const { destination, records } = recordSink();
      const running = await startHttpServer({
        port: 0,
        logger: createDemoLogger({ destination, level: 'debug' }),
        extend: (_server, extended) => {
          extended.registerTool('crash', { description: 'Fails the way a bug does.' }, () => {
            throw new Error('tickets table is corrupt at /var/lib/tracker/tracker.db');
          });
        },
      });
      const connection = await connect(running.as('alice'), { era });
      try {
        const result = await connection.extended!.callTool('crash', {});
        expect(result.isError).toBe(true);
        const structured = getStructuredError(result);
        expect(structured).toMatchObject({ code: 'INTERNAL_ERROR', category: 'permanent' });
        const id = structured?.details?.correlation_id;
        expect(id).toMatch(/^[0-9a-f]{16}$/);
        expect(JSON.stringify(result)).not.toContain('/var/lib');

        const logged = records.filter((record) => record.correlation_id !== undefined);
        expect(logged).toHaveLength(1);
        const [line] = logged;
        // pino's numeric level 50 is "error".
        expect(line).toMatchObject({
          level: 50,
          name: 'tracker',
          correlation_id: id,
          method: 'tools/call',
          tool: 'crash',
        });
        expect(String(line?.msg)).toContain(String(id));
        expect(line?.principal).toEqual(expect.stringContaining('alice'));
        expect(String(line?.stack)).toContain('tickets table is corrupt');
        expect(String(line?.stack)).toMatch(/\n\s+at /);
      } finally {
        await connection.close();
        await running.close();
      }
    });
  },
);
