import { canonicalHash, type ToolResult } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { citation, getProvenance } from './client.js';
import { PROVENANCE_ID } from './schema.js';

describe('citation', () => {
  it('PROV-7: renders the claim, source, location and date as one line', () => {
    expect(citation({ source: 'invoice_v2.pdf', location: { page: 3 }, retrieved_at: '2026-03-10T09:00:00Z' }, 'Q3 revenue $4.2M')).toBe(
      'Q3 revenue $4.2M, invoice_v2.pdf p.3, retrieved 2026-03-10',
    );
    expect(citation({ source: 'sheet.xlsx', location: { cell: 'B14' }, confidence: 'derived', transformation: 'SUM of rows 2-15 in column B' })).toBe(
      'sheet.xlsx cell B14, derived, SUM of rows 2-15 in column B',
    );
  });
});

describe('getProvenance', () => {
  const data = { total: 4.2, currency: 'USD' };
  const result = (meta: unknown, structuredContent: Record<string, unknown> = data): ToolResult => ({
    content: [{ type: 'text', text: '4.2' }],
    structuredContent,
    _meta: { [PROVENANCE_ID]: meta },
  });

  it('PROV-5: verifies the digest, and notices content that changed', () => {
    const meta = { provenance: { source: 'ledger' }, sha256: canonicalHash({ currency: 'USD', total: 4.2 }) };
    expect(getProvenance(result(meta))).toEqual({ sources: [{ source: 'ledger' }], digest: 'verified' });
    expect(getProvenance(result(meta, { ...data, total: 9.9 }))?.digest).toBe('mismatch');
    expect(getProvenance(result({ provenance: [{ source: 'a' }, { source: 'b' }] }))).toEqual({ sources: [{ source: 'a' }, { source: 'b' }], digest: 'absent' });
  });

  it('PROV-8: never trusts a malformed entry half-way', () => {
    expect(getProvenance(result({ provenance: { source: '' } }))).toBeUndefined();
    expect(getProvenance(result('invoice.pdf'))).toBeUndefined();
    expect(getProvenance({ content: [] })).toBeUndefined();
  });
});
