import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeServer } from './compose.js';
import { ConfigurationError } from '../contract/errors.js';
import { PIPELINE_STAGES, type StagePlacement } from '../contract/stages.js';
import { type ServerExtension } from '../contract/extension.js';
import { silentLogger } from '../telemetry/logger.js';
import { inPipelineOrder } from './stage-placement.js';

function placed(name: string, stage: StagePlacement | undefined): ServerExtension {
  return {
    side: 'server',
    name,
    ids: [`io.github.mcp-ext/${name}`],
    settings: { version: '1.0' },
    ...(stage === undefined ? {} : { stage, middleware: (_call, _ctx, next) => next() }),
  };
}

/** Every built-in stage, held by a package of that name, as the family composes them. */
const family = (): ServerExtension[] => PIPELINE_STAGES.map((stage) => placed(stage, stage));

const order = (halves: readonly ServerExtension[]): string[] => inPipelineOrder(halves).map((half) => half.name);

function refusal(halves: readonly ServerExtension[]): ConfigurationError {
  try {
    inPipelineOrder(halves);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('composed without a refusal');
}

describe('stage placement (CORE-50)', () => {
  it('runs a half placed after a stage just inside it, and one placed before a stage just outside it', () => {
    const names = order([
      placed('audit', { after: 'intent' }),
      placed('shaper', { before: 'confirmation' }),
      ...family(),
    ]);
    expect(names.slice(names.indexOf('intent'), names.indexOf('intent') + 2)).toEqual(['intent', 'audit']);
    expect(names.slice(names.indexOf('tasks'), names.indexOf('tasks') + 3)).toEqual([
      'tasks',
      'shaper',
      'confirmation',
    ]);
    expect(names[0]).toBe('errors');
  });

  it('lets halves share a named stage, running in the order they were composed', () => {
    expect(order([placed('second', 'intent'), placed('first', 'cost'), placed('third', 'intent')])).toEqual([
      'first',
      'second',
      'third',
    ]);
  });

  it('labels each placement in the composed pipeline', () => {
    const composed = composeServer([placed('audit', { after: 'errors' }), placed('shaper', { before: 'tasks' })], {
      logger: silentLogger,
    });
    expect(composed.pipeline).toEqual([
      { stage: 'after errors', extension: 'audit' },
      { stage: 'before tasks', extension: 'shaper' },
    ]);
    expect(composed.describe()).toMatch(/ 1\. after errors +audit/);
  });

  it('refuses, naming the package, a middleware without a place, an unknown stage, and anything outside errors', () => {
    const noPlace: ServerExtension = { ...placed('loose', undefined), middleware: (_call, _ctx, next) => next() };
    const missing = refusal([noPlace]);
    expect([missing.code, missing.message]).toEqual(['MISSING_STAGE', expect.stringMatching(/^loose: /) as string]);
    for (const stage of [
      'audit',
      { after: 'audit' },
      { before: 'nowhere' },
      7,
      null,
      {},
    ] as unknown as StagePlacement[]) {
      const unknown = refusal([placed('typo', stage)]);
      expect(unknown.code).toBe('UNKNOWN_STAGE');
      expect(unknown.message).toMatch(/^typo: unknown pipeline stage .*; the stages are errors, /);
    }
    expect(refusal([placed('wrapper', { before: 'errors' })]).code).toBe('STAGE_BEFORE_ERRORS');
    expect(refusal([placed('errors', 'errors'), placed('other-errors', 'errors')]).message).toMatch(
      /other-errors and errors both claim the errors stage/,
    );
  });

  it('orders any set of placements by stage, then before / at / after, then the order composed', () => {
    const stage = fc.constantFrom(...PIPELINE_STAGES.filter((name) => name !== 'errors'));
    const placement: fc.Arbitrary<StagePlacement> = fc.oneof(
      stage,
      stage.map((name) => ({ before: name })),
      stage.map((name) => ({ after: name })),
    );
    fc.assert(
      fc.property(fc.array(placement, { maxLength: 12 }), (placements) => {
        const halves = placements.map((where, index) => placed(`h${String(index)}`, where));
        const key = (half: ServerExtension): [number, number, number] => {
          const where = half.stage as StagePlacement;
          const [anchor, side] =
            typeof where === 'string' ? [where, 1] : 'before' in where ? [where.before, 0] : [where.after, 2];
          return [PIPELINE_STAGES.indexOf(anchor), side, Number(half.name.slice(1))];
        };
        const keys = inPipelineOrder(halves).map(key);
        for (let index = 1; index < keys.length; index += 1) {
          const [a, b] = [keys[index - 1]!, keys[index]!];
          expect(a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])))).toBe(true);
        }
        expect(keys).toHaveLength(halves.length);
      }),
    );
  });
});
