import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  configReference,
  gatewayJsonSchema,
  REFERENCE_END,
  REFERENCE_START,
  withConfigReference,
} from './json-schema.js';
import { CONFIG_SCHEMA_ID } from './schema.js';
import { FULL_CONFIG, withValue } from './test-configs.js';

const README = new URL('../../README.md', import.meta.url);

function compiled() {
  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  return ajv.compile(gatewayJsonSchema());
}

describe('gatewayJsonSchema', () => {
  it('gateway.schema.json is the generated document (refresh with `pnpm docs`)', async () => {
    await expect(`${JSON.stringify(gatewayJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./gateway.schema.json');
  });

  it('is a JSON Schema 2020-12 document that compiles strictly and judges configs as the loader does', () => {
    const schema = gatewayJsonSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(CONFIG_SCHEMA_ID);
    const check = compiled();
    expect(check(FULL_CONFIG)).toBe(true);
    expect(check({ upstreams: { fs: { command: 'npx' } } })).toBe(true);
    expect(check({ upstreams: {} })).toBe(false);
    expect(check(withValue(FULL_CONFIG, ['upstreams', 'a__b'], { command: 'x' }))).toBe(false);
    expect(check(withValue(FULL_CONFIG, ['policy', 'write file'], {}))).toBe(false);
    expect(check(withValue(FULL_CONFIG, ['identity', 'apiKeys', 'short'], 'bob'))).toBe(false);
    expect(check(withValue(FULL_CONFIG, ['upstreams', 'fs', 'env', '1X'], 'y'))).toBe(false);
    expect(check(withValue(FULL_CONFIG, ['listen', 'tls'], true))).toBe(false);
  });
});

describe('configReference', () => {
  it('lists every field with its type, default and description', () => {
    const reference = configReference();
    expect(reference).toMatch(/^\| Field \| Type \| Default \| Description \|\n\| --- \| --- \| --- \| --- \|\n/);
    expect(reference).toContain(
      '| `listen.port` | integer | `8080` | TCP port (`0` picks a free one). Allowed: an integer from 0 to 65535. |',
    );
    expect(reference).toContain('| `upstreams.<name>.url` | string |  |');
    expect(reference).toContain('| `policy.<glob>.intent[].pattern` | string |  |');
    expect(reference).toContain(
      '| `store` | "memory" \\| { sqlite } \\| { redis, commandTimeoutMs, keyPrefix } | `{"sqlite":"gateway.db"}` |',
    );
  });

  it('replaces only the block between the markers', () => {
    const readme = `# Title\n\nBefore.\n\n${REFERENCE_START}\nold\n${REFERENCE_END}\n\nAfter.\n`;
    const updated = withConfigReference(readme, '| table |');
    expect(updated).toMatch(/^# Title\n\nBefore\.\n\n<!-- config-reference:start -->\n/);
    expect(updated).toContain('\n\n| table |\n\n<!-- config-reference:end -->\n\nAfter.\n');
    expect(withConfigReference(updated, '| table |')).toBe(updated);
    expect(() => withConfigReference('# no markers', 'x')).toThrow(/config-reference:start/);
  });

  it('the README carries the current reference (refresh with `pnpm --filter @ext/gateway docs`)', async () => {
    const readme = await readFile(README, 'utf8');
    const expected = withConfigReference(readme);
    if (process.env.UPDATE_DOCS === '1' && expected !== readme) await writeFile(README, expected);
    else expect(readme).toBe(expected);
  });
});
