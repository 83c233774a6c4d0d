import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from './config/load.js';
import { resolveToolPolicy } from './policy/resolve.js';

/** The YAML config the README opens with. */
function readmeConfig(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```yaml\n([\s\S]*?)```/.exec(readme);
  if (block?.[1] === undefined) throw new Error('README.md has no yaml block');
  return block[1];
}

describe("the README's opening config", () => {
  it('is valid, and gates, dedupes and meters write_file as the README says', () => {
    const config = parseConfig(readmeConfig(), { source: 'README.md' });
    expect(Object.keys(config.upstreams)).toEqual(['files']);
    const policy = resolveToolPolicy({ config, tool: { name: 'write_file', annotations: { destructiveHint: true } } });
    expect(policy).toMatchObject({
      confirm: { risk: 'reversible', message: 'Write {path}?' },
      idempotent: true,
      cost: { unit: 'writes', quota: { limit: 20, windowSeconds: 60 } },
    });
    const read = resolveToolPolicy({ config, tool: { name: 'read_text_file', annotations: { readOnlyHint: true } } });
    expect(read).toMatchObject({ confirm: undefined, idempotent: false, cost: undefined });
  });
});
