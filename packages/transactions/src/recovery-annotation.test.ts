import { readFileSync } from 'node:fs';
import { ConfigurationError } from '@ext/core';
import { Compile } from 'typebox/compile';
import { describe, expect, it } from 'vitest';
import { validatorOf } from './input.js';
import {
  bindRecoveryParameters,
  readRecovery,
  recoveryAnnotation,
  RecoveryBindingError,
  ToolRecovery,
} from './recovery-annotation.js';
import { transactionsServer } from './server.js';

/** The draft's own material (SEP-3172, PR #3172), see test-fixtures/sep-3172/README.md. */
function fixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`./test-fixtures/sep-3172/${name}`, import.meta.url), 'utf8')) as unknown;
}

const draftAnnotations = Compile(fixture('tool-annotations.schema.json') as Parameters<typeof Compile>[0]);
const example = fixture('charge-payment.recovery.json') as ToolRecovery;
const response = fixture('charge-payment.response.json') as Record<string, unknown>;

describe('SEP-3172 recovery annotation', () => {
  it("TXN-23: the draft's example is a valid declaration, in the draft's schema and in ours", () => {
    expect(draftAnnotations.Check({ recovery: example })).toBe(true);
    expect(validatorOf(ToolRecovery).Check(example)).toBe(true);
    expect(readRecovery({ destructiveHint: true, recovery: example })).toEqual({ kind: 'declared', recovery: example });
  });

  it("TXN-23: binds the example against the draft's response, as section 4.2 describes", () => {
    const args = { amount: 59.97 };
    const result = { content: [], structuredContent: response };
    expect(bindRecoveryParameters(example.compensatingOperation.parameters, args, result)).toEqual({
      transactionId: 'TXN-123',
    });
  });

  it('TXN-23: reads arguments, whole bodies, escaped pointers, array items and constants', () => {
    const parameters = {
      id: '$request.body#/order/id',
      all: '$response.body',
      slash: '$response.body#/a~1b',
      tilde: '$response.body#/c~0d',
      first: '$response.body#/items/0',
      reason: 'compensation',
    };
    const result = { content: [], structuredContent: { 'a/b': 1, 'c~d': 2, items: ['x', 'y'] } };
    expect(bindRecoveryParameters(parameters, { order: { id: 'O-7' } }, result)).toEqual({
      id: 'O-7',
      all: result.structuredContent,
      slash: 1,
      tilde: 2,
      first: 'x',
      reason: 'compensation',
    });
  });

  it('TXN-23: an expression the step cannot satisfy throws instead of binding a partial call (SEP-3172 §4.2)', () => {
    const parameters = example.compensatingOperation.parameters;
    expect(() => bindRecoveryParameters(parameters, {}, { content: [], structuredContent: { amount: 1 } })).toThrow(
      RecoveryBindingError,
    );
    expect(() => bindRecoveryParameters(parameters, {}, { content: [] })).toThrow(/structuredContent is absent/);
    expect(() =>
      bindRecoveryParameters({ x: '$response.body#/items/5' }, {}, { content: [], structuredContent: { items: [] } }),
    ).toThrow(RecoveryBindingError);
  });

  it('TXN-23: a declaration the draft does not allow, or binding what MCP has not, is invalid and says where', () => {
    const missing = readRecovery({ recovery: { strategy: 'compensation', compensatingOperation: { parameters: {} } } });
    expect(missing).toMatchObject({ kind: 'invalid', pointer: '/recovery/compensatingOperation' });
    expect(draftAnnotations.Check({ recovery: { strategy: 'compensation', compensatingOperation: {} } })).toBe(false);
    const header = readRecovery({
      recovery: recoveryAnnotation('refund_payment', { id: '$response.header.X-Charge' }),
    });
    expect(header).toMatchObject({ kind: 'invalid', pointer: '/recovery/compensatingOperation/parameters/id' });
    const notString = readRecovery({
      recovery: { strategy: 'compensation', compensatingOperation: { operationId: 'r', parameters: { id: 1 } } },
    });
    expect(notString).toMatchObject({ kind: 'invalid' });
  });

  it('TXN-23: no annotation, or a strategy of a later draft, declares nothing', () => {
    expect(readRecovery(undefined)).toEqual({ kind: 'none' });
    expect(readRecovery({ readOnlyHint: true })).toEqual({ kind: 'none' });
    expect(readRecovery({ recovery: { strategy: 'manual-only' } })).toEqual({ kind: 'none' });
  });

  it("TXN-25: what the server writes for a compensation declared with bindings is valid in the draft's schema", () => {
    const written = recoveryAnnotation('refund_payment', { transactionId: '$response.body#/transactionId' });
    expect(written).toEqual(example);
    expect(draftAnnotations.Check({ recovery: written })).toBe(true);
  });

  it('TXN-25: bindings an MCP call cannot satisfy are refused when the server is created, naming the field', () => {
    const create = () =>
      transactionsServer({
        sweepIntervalMs: 0,
        compensations: {
          charge: { tool: 'refund', bindings: { id: '$url' }, compensate: () => undefined },
        },
      });
    expect(create).toThrow(ConfigurationError);
    expect(create).toThrow(/compensations\.charge\.bindings\.id/);
  });
});
