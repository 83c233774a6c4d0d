import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { seedValidators } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { costClient } from './client.js';
import { parseToolCost } from './declaration.js';
import { costJsonSchema, SCHEMA_BASE } from './schema.js';
import { costServer } from './server.js';
import { DECLARATIONS } from './test-fixtures.js';

function ajv(): Ajv2020 {
  const instance = new Ajv2020({ strict: true });
  addFormats.default(instance);
  instance.addSchema(costJsonSchema());
  return instance;
}

const at = (name: string): string => `${SCHEMA_BASE}/cost.json#/$defs/${name}`;

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(costJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  it('COST-1 COST-2: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const validator = ajv();
    expect(validator.validate(`${SCHEMA_BASE}/settings.json`, costServer().settings)).toBe(true);
    expect(validator.validate(`${SCHEMA_BASE}/settings.json`, costClient().settings)).toBe(true);
    for (const declaration of Object.values(DECLARATIONS)) {
      const parsed = parseToolCost(declaration);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(validator.validate(`${SCHEMA_BASE}/tool-meta.json`, parsed.value)).toBe(true);
    }
    expect(
      validator.validate(`${SCHEMA_BASE}/tool-meta.json`, { cost: { category: 'cheap', estimated_units: 1 } }),
    ).toBe(false);
    expect(
      validator.validate(`${SCHEMA_BASE}/result-meta.json`, {
        units_used: 1,
        estimated_units: 1,
        quota: { limit: 5, used: 1, remaining: 4, resets_at: 'tomorrow', window_seconds: 60 },
      }),
    ).toBe(false);
    expect(validator.validate(`${SCHEMA_BASE}/status-params.json`, { tools: [''] })).toBe(false);
  });
});

describe('agreement with the seed schemas (COST-17)', () => {
  const seeds = seedValidators();

  it("the declaration's cost, latency and rate limits are the seed manifest's CostInfo, latency and RateLimits", () => {
    const costInfo = seeds.check('service-manifest', 'CostInfo');
    const tool = seeds.check('service-manifest', 'ToolDefinition');
    const rateLimits = seeds.check('service-manifest', 'RateLimits');
    for (const [name, declaration] of Object.entries(DECLARATIONS)) {
      const parsed = parseToolCost(declaration);
      if (!parsed.ok) throw new Error(parsed.message);
      const meta = parsed.value;
      expect(costInfo(meta.cost)).toEqual({ valid: true, errors: '' });
      const definition: Record<string, unknown> = {
        name,
        description: name,
        input_schema: { type: 'object' },
        cost: meta.cost,
      };
      if (meta.latency !== undefined) definition.latency = meta.latency;
      expect(tool(definition)).toEqual({ valid: true, errors: '' });
      if (meta.rate_limits !== undefined) expect(rateLimits(meta.rate_limits)).toEqual({ valid: true, errors: '' });
    }
  });

  it("a status entry carries the seed example's fields: tool, cost, latency, quota { remaining, resets_at }", () => {
    const validator = ajv();
    const entry = {
      tool: 'export_analytics',
      cost: { category: 'metered', estimated_units: 5 },
      latency: 'minutes',
      quota: { limit: 12, used: 0, remaining: 12, resets_at: '2026-03-16T00:00:00Z', window_seconds: 86_400 },
    };
    expect(validator.validate(at('CostToolStatus'), entry)).toBe(true);
    expect(
      validator.validate(at('CostToolStatus'), {
        ...entry,
        quota: { remaining: 12, resets_at: '2026-03-16T00:00:00Z' },
      }),
    ).toBe(false);
  });
});
