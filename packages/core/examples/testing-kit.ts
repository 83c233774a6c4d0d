/** The README's testing kit: the kit's `label` extension tested end to end on every SDK line and era. */
// #region testing
import { describe, expect, it } from 'vitest';
import { TEST_LINES, createTestPair } from '@ext/core/testing';
import { callLabel, LABEL_ID, labelClient, labelServer } from './kit-extension.js';

describe.each(TEST_LINES)('%s', (line) => {
  it('hands the label to the tool and echoes it', async () => {
    const pair = await createTestPair({
      line,
      serverExtensions: [labelServer()],
      clientExtensions: [labelClient({ label: () => 'nightly-report' })],
      setup: (server) => {
        server.registerTool('whoami', {}, (_args, ctx) => ({
          content: [{ type: 'text', text: callLabel.get(ctx) ?? 'no label' }],
        }));
      },
    });
    try {
      // pair.client is an ExtendedClient on SDK v1, v2 legacy or v2 2026-07-28
      const result = await pair.client.callTool('whoami');
      expect(result.content).toEqual([{ type: 'text', text: 'nightly-report' }]);
      expect(result._meta?.[LABEL_ID]).toEqual({ label: 'nightly-report' });
    } finally {
      await pair.close();
    }
  });
});
// #endregion testing
