import { canonicalHash } from '@ext/core/kit';
import { type ToolResult } from '@ext/core';
import { describe, expect, it } from 'vitest';
import { citation, citations, getProvenance } from './client.js';
import { PROVENANCE_ID } from './schema.js';

describe('citation', () => {
  it('PROV-7: renders the claim, source, location and date as one line', () => {
    expect(
      citation(
        { source: 'invoice_v2.pdf', location: { page: 3 }, retrieved_at: '2026-03-10T09:00:00Z' },
        'Q3 revenue $4.2M',
      ),
    ).toBe('Q3 revenue $4.2M, invoice_v2.pdf p.3, retrieved 2026-03-10');
    expect(
      citation({
        source: 'sheet.xlsx',
        location: { cell: 'B14' },
        confidence: 'derived',
        transformation: 'SUM of rows 2-15 in column B',
      }),
    ).toBe('sheet.xlsx cell B14, derived, SUM of rows 2-15 in column B');
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
    expect(getProvenance(result(meta))).toEqual({ sources: [{ source: 'ledger' }], digest: 'verified', omitted: 0 });
    expect(getProvenance(result(meta, { ...data, total: 9.9 }))?.digest).toBe('mismatch');
    expect(getProvenance(result({ provenance: [{ source: 'a' }, { source: 'b' }], sources_omitted: 3 }))).toEqual({
      sources: [{ source: 'a' }, { source: 'b' }],
      digest: 'absent',
      omitted: 3,
    });
  });

  it('PROV-8: never trusts a malformed entry half-way', () => {
    expect(getProvenance(result({ provenance: { source: '' } }))).toBeUndefined();
    expect(getProvenance(result('invoice.pdf'))).toBeUndefined();
    expect(getProvenance({ content: [] })).toBeUndefined();
  });
});

describe('citations', () => {
  const data = { total: 4.2 };
  const meta = {
    provenance: [{ source: 'invoice_v2.pdf', location: { page: 3 } }, { source: 'ledger' }],
    sha256: canonicalHash(data),
  };
  it('PROV-7: renders one line per source, and only verified ones when asked', () => {
    const good: ToolResult = { content: [], structuredContent: data, _meta: { [PROVENANCE_ID]: meta } };
    expect(citations(good, 'Q3 revenue $4.2M')).toEqual([
      'Q3 revenue $4.2M, invoice_v2.pdf p.3',
      'Q3 revenue $4.2M, ledger',
    ]);
    const altered: ToolResult = { ...good, structuredContent: { total: 9 } };
    expect(citations(altered, undefined, { requireVerified: true })).toEqual([]);
    expect(citations(altered)).toHaveLength(2);
    expect(citations({ content: [] })).toEqual([]);
  });
});
