import { seedValidators } from '@ext/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { manifestClient } from './client.js';
import { parseServiceManifest } from './parse.js';
import { manifestJsonSchema, SCHEMA_BASE } from './schema.js';
import { manifestServer } from './server.js';
import { mutate, pathsOf, validManifest, wrongValue } from './test-fixtures.js';

const seed = seedValidators();
const seedManifest = seed.check('service-manifest');

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(manifestJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  ajv.addSchema(manifestJsonSchema());
  const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);

  it('MAN-1: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    const server = manifestServer({ ttlSeconds: 60 });
    expect(check('server-settings', server.settings)).toBe(true);
    expect(server.settings).toEqual({ version: '1.0', ttl_seconds: 60 });
    expect(check('client-settings', manifestClient().settings)).toBe(true);
    expect(check('tool-meta', { supports_pagination: true })).toBe(true);
    expect(check('get-params', { etag: '' })).toBe(false);
    expect(check('get-result', { etag: 'e', ttl_seconds: 0, not_modified: true })).toBe(false);
    expect(check('changed-params', { etag: 'e' })).toBe(true);
  });
});

describe('the service manifest shape agrees with the seed schema', () => {
  it('MAN-3: accepts every manifest the seed schema accepts (generated, every optional field)', () => {
    fc.assert(
      fc.property(validManifest, (manifest) => {
        expect(seedManifest(manifest).errors).toBe('');
        const parsed = parseServiceManifest(manifest);
        expect(parsed.ok).toBe(true);
      }),
    );
  });

  it('MAN-3: refuses exactly what the seed schema refuses (one field broken or removed)', () => {
    const mutated = validManifest.chain((manifest) => {
      const paths = pathsOf(manifest);
      return fc.tuple(fc.constant(manifest), fc.constantFrom(...paths), fc.option(wrongValue, { nil: undefined }));
    });
    fc.assert(
      fc.property(mutated, ([manifest, path, replacement]) => {
        const broken = mutate(manifest, path, replacement);
        const ours = parseServiceManifest(broken).ok;
        const seedValid = seedManifest(broken).valid;
        // `extensions` is ours alone (the seed leaves documents open): there we may only be stricter.
        if (path[0] === 'extensions') expect(!ours || seedValid).toBe(true);
        else expect(ours, `${path.join('/')} -> ${JSON.stringify(replacement)}`).toBe(seedValid);
      }),
      { numRuns: 500 },
    );
  });

  it('MAN-3: names the JSON Pointer of the first violation', () => {
    const parsed = parseServiceManifest({
      manifest_version: '0.1.0',
      server: { name: 's', version: '1', mcp_spec_version: 'x' },
      tools: [],
    });
    expect(parsed).toMatchObject({ ok: false, pointer: '/server/version' });
  });
});
