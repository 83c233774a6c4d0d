import { extensionId, type ToolInfo } from '@ext/core';
import { seedValidators } from '@ext/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildServiceManifest,
  getAnswer,
  isListableToolName,
  manifestEtag,
  manifestServerVersion,
  scopesFromPermissions,
  supportedExtensionsOf,
  toolDefinition,
  type ManifestSource,
} from './logic.js';
import { httpUrl } from './http-url.js';
import { parseGetParams, parseGetResult, parseManifestToolMeta } from './parse.js';
import { slowTools } from './queries.js';
import { MANIFEST_ID, SERVER_VERSION_PATTERN_SOURCE } from './schema.js';

const seedManifest = seedValidators().check('service-manifest');
const id = (name: string): string => extensionId(name);

function source(
  tools: ToolInfo[],
  capabilities: Record<string, Record<string, unknown>> = {},
  protocolVersion?: string,
): ManifestSource {
  return {
    identity: { name: 'shop', version: '1.2.3' },
    tools,
    decorate: (tool) => ({ _meta: tool._meta ?? {}, annotations: tool.annotations }),
    capabilities,
    protocolVersion,
  };
}

describe('toolDefinition', () => {
  it('MAN-5: carries name, description and the input/output JSON Schemas', () => {
    const input = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
    const output = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const tool: ToolInfo = {
      name: 'get_order',
      description: 'Reads an order',
      inputJsonSchema: input,
      outputJsonSchema: output,
    };
    expect(toolDefinition(tool, { _meta: {} })).toEqual({
      name: 'get_order',
      description: 'Reads an order',
      input_schema: input,
      output_schema: output,
      idempotent: false,
      requires_confirmation: false,
    });
    expect(toolDefinition({ name: 'ping', title: 'Ping' }, { _meta: {} })).toMatchObject({
      description: 'Ping',
      input_schema: { type: 'object', properties: {} },
    });
  });

  it("MAN-6: maps every extension's Tool._meta entry into the seed fields", () => {
    const meta = {
      [id('confirmation')]: {
        requires_confirmation: true,
        risk_level: 'destructive',
        confirmation_message: 'Delete {id}?',
      },
      [id('cost')]: {
        cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
        latency: 'minutes',
        quota: { limit: 12, window_seconds: 86_400 },
      },
      [id('permissions')]: { required_scopes: ['orders:write'] },
      [id('idempotency')]: { idempotent_capable: true },
      [id('streaming')]: { checkpoints: true },
      [id('multimodal')]: {
        input_types: ['image/png'],
        output_types: ['application/json'],
        max_input_size_bytes: 1024,
      },
      [MANIFEST_ID]: { supports_pagination: true },
    };
    expect(toolDefinition({ name: 'export', description: 'Exports' }, { _meta: meta })).toEqual({
      name: 'export',
      description: 'Exports',
      input_schema: { type: 'object', properties: {} },
      input_types: ['image/png'],
      output_types: ['application/json'],
      max_input_size_bytes: 1024,
      cost: { category: 'metered', estimated_units: 5, unit_label: 'API calls' },
      latency: 'minutes',
      idempotent: true,
      requires_confirmation: true,
      confirmation_message: 'Delete {id}?',
      risk_level: 'destructive',
      required_scopes: ['orders:write'],
      supports_streaming: true,
      supports_pagination: true,
    });
  });

  it('MAN-6: reads idempotence and risk from MCP annotations when no extension says', () => {
    expect(toolDefinition({ name: 'a' }, { _meta: {}, annotations: { readOnlyHint: true } })).toMatchObject({
      idempotent: true,
      risk_level: 'safe',
    });
    expect(
      toolDefinition({ name: 'a' }, { _meta: {}, annotations: { destructiveHint: true, idempotentHint: true } }),
    ).toMatchObject({
      idempotent: true,
      risk_level: 'destructive',
    });
    expect(
      toolDefinition({ name: 'a' }, { _meta: {}, annotations: { destructiveHint: false } }).risk_level,
    ).toBeUndefined();
  });

  it('MAN-6: leaves out what is malformed instead of passing it on', () => {
    const meta = {
      [id('confirmation')]: { requires_confirmation: 'yes', risk_level: 'catastrophic', confirmation_message: 7 },
      [id('cost')]: { cost: { category: 'expensive', estimated_units: Number.NaN, unit_label: 3 }, latency: 'hours' },
      [id('permissions')]: { required_scopes: 'orders:write' },
      [id('multimodal')]: { input_types: [1], max_input_size_bytes: 1.5 },
      [MANIFEST_ID]: { supports_pagination: 'no' },
    };
    const entry = toolDefinition({ name: 'x' }, { _meta: meta });
    expect(entry).toEqual({
      name: 'x',
      description: '',
      input_schema: { type: 'object', properties: {} },
      idempotent: false,
      requires_confirmation: false,
    });
  });

  it('MAN-6: any extension metadata, however malformed, still yields a valid manifest', () => {
    const anyJson = fc.jsonValue({ maxDepth: 3 });
    const keys = ['confirmation', 'cost', 'permissions', 'idempotency', 'streaming', 'multimodal', 'manifest'].map(
      (name) => id(name),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...keys), anyJson),
        fc.dictionary(fc.constantFrom('readOnlyHint', 'destructiveHint', 'idempotentHint'), anyJson),
        (meta, annotations) => {
          const { manifest } = buildServiceManifest(source([{ name: 'tool', _meta: meta, annotations }]));
          expect(seedManifest(manifest).errors).toBe('');
        },
      ),
    );
  });
});

describe('buildServiceManifest', () => {
  it("MAN-4: names the server from its SDK identity and the request's protocol revision", () => {
    const { manifest } = buildServiceManifest(source([], {}, '2026-07-28'));
    expect(manifest.server).toEqual({ name: 'shop', version: '1.2.3', mcp_spec_version: '2026-07-28' });
    const configured = buildServiceManifest(source([]), {
      description: 'A shop',
      homepage: 'https://shop.example/docs',
      mcpSpecVersion: '2025-06-18',
    });
    expect(configured.manifest.server).toEqual({
      name: 'shop',
      version: '1.2.3',
      mcp_spec_version: '2025-06-18',
      description: 'A shop',
      homepage: 'https://shop.example/docs',
    });
    expect(buildServiceManifest(source([])).manifest.server.mcp_spec_version).toBe('2025-11-25');
  });

  it('MAN-5: lists tools sorted by name, leaves out names the seed cannot carry, and honours include', () => {
    const tools: ToolInfo[] = [{ name: 'zeta' }, { name: 'getOrder' }, { name: 'alpha' }, { name: 'internal_debug' }];
    const built = buildServiceManifest(source(tools), { include: (tool) => !tool.name.startsWith('internal_') });
    expect(built.manifest.tools.map((tool) => tool.name)).toEqual(['alpha', 'zeta']);
    expect(built.unlistable).toEqual(['getOrder']);
  });

  it('MAN-7: names the seed extensions for what is advertised, and every identifier with its version', () => {
    const capabilities = {
      [id('errors')]: { version: '1.0' },
      [id('streaming')]: { version: '1.0' },
      [id('confirmation')]: { version: '1.0' },
      [id('cost')]: { version: '1.0' },
      [id('errors-v2')]: { version: '2.0' },
      'io.modelcontextprotocol/content-negotiation': { version: '1.0' },
    };
    const { manifest } = buildServiceManifest(source([], capabilities));
    expect(manifest.supported_extensions).toEqual([
      'streaming',
      'progress_notifications',
      'human_in_the_loop',
      'structured_errors',
    ]);
    expect(manifest.extensions).toEqual({
      [id('confirmation')]: '1.0',
      [id('cost')]: '1.0',
      [id('errors')]: '1.0',
      [id('errors-v2')]: '2.0',
      [id('streaming')]: '1.0',
      'io.modelcontextprotocol/content-negotiation': '1.0',
    });
  });

  it('MAN-8: takes scopes and session TTL from the permissions settings, adding configured methods and scopes', () => {
    const permissions = {
      version: '1.0',
      session_ttl_seconds: 900,
      scopes: [
        { name: 'orders:read', description: 'read orders', tools: ['get_order'], auto_grant: true },
        { name: 'broken' },
      ],
    };
    const { manifest } = buildServiceManifest(source([], { [id('permissions')]: permissions }), {
      auth: {
        methods: ['bearer_token'],
        scopes: [
          { name: 'orders:read', description: 'dup' },
          { name: 'admin', description: 'administer' },
        ],
      },
    });
    expect(manifest.auth).toEqual({
      methods: ['bearer_token'],
      scopes: [
        { name: 'orders:read', description: 'read orders', grants: ['get_order'] },
        { name: 'admin', description: 'administer' },
      ],
      session_ttl_seconds: 900,
    });
    expect(buildServiceManifest(source([])).manifest.auth).toBeUndefined();
  });

  it('MAN-9: carries configured rate limits and recommendations', () => {
    const recommendations = [
      {
        capability: 'ci',
        server_name: 'ci-mcp',
        registry_url: 'https://registry.example/ci',
        match_confidence: 'high' as const,
      },
    ];
    const { manifest } = buildServiceManifest(source([]), { rateLimits: { requests_per_minute: 30 }, recommendations });
    expect(manifest.rate_limits).toEqual({ requests_per_minute: 30 });
    expect(manifest.recommendations).toEqual(recommendations);
    expect(seedManifest(manifest).errors).toBe('');
  });
});

describe('etags and answers', () => {
  it('MAN-10: the etag depends on content only, not on the order tools were registered in', () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(names, fc.nat(), (list, seed) => {
        const tools = list.map((name) => ({ name, description: name }));
        const rotated = [...tools.slice(seed % tools.length), ...tools.slice(0, seed % tools.length)].reverse();
        const a = buildServiceManifest(source(tools)).manifest;
        const b = buildServiceManifest(source(rotated)).manifest;
        expect(manifestEtag(a)).toBe(manifestEtag(b));
        const changed = buildServiceManifest(source([...tools, { name: 'zz_new', description: 'new' }])).manifest;
        expect(manifestEtag(changed)).not.toBe(manifestEtag(a));
      }),
    );
  });

  it('MAN-11: answers "not modified" without a manifest exactly when the client holds the current etag', () => {
    const { manifest } = buildServiceManifest(source([]));
    const etag = manifestEtag(manifest);
    expect(getAnswer(manifest, etag, 300, etag)).toEqual({ etag, ttl_seconds: 300, not_modified: true });
    expect(getAnswer(manifest, etag, 300, 'old')).toEqual({ etag, ttl_seconds: 300, not_modified: false, manifest });
    expect(getAnswer(manifest, etag, 300, undefined).manifest).toBe(manifest);
  });

  it('MAN-12: get params are checked, and any input is answered without throwing', () => {
    expect(parseGetParams(undefined)).toEqual({ ok: true, value: {} });
    expect(parseGetParams({ etag: 'abc' })).toEqual({ ok: true, value: { etag: 'abc' } });
    expect(parseGetParams({ etag: 5 })).toMatchObject({ ok: false, pointer: '/etag' });
    expect(parseGetParams({ etag: 'x'.repeat(257) })).toMatchObject({ ok: false, pointer: '/etag' });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const parsed = parseGetParams(value);
        expect(typeof parsed.ok).toBe('boolean');
      }),
    );
  });

  it('MAN-17: a get answer without a manifest is accepted only as "not modified"', () => {
    expect(parseGetResult({ etag: 'e', ttl_seconds: 1, not_modified: false })).toMatchObject({
      ok: false,
      pointer: '/manifest',
    });
    expect(parseGetResult({ etag: 'e', ttl_seconds: 1, not_modified: true }).ok).toBe(true);
    expect(
      parseGetResult({ etag: 'e', ttl_seconds: 1, not_modified: false, manifest: { manifest_version: '0.1.0' } }),
    ).toMatchObject({
      ok: false,
      pointer: '/manifest/server',
    });
  });
});

describe('small parsers', () => {
  it('MAN-4: any server version becomes one the seed pattern accepts, keeping semver ones', () => {
    const pattern = new RegExp(SERVER_VERSION_PATTERN_SOURCE);
    expect(manifestServerVersion('1.4.2')).toBe('1.4.2');
    expect(manifestServerVersion('2.0.0-rc.1')).toBe('2.0.0-rc.1');
    expect(manifestServerVersion('1.2')).toBe('1.2.0');
    expect(manifestServerVersion('v3')).toBe('3.0.0');
    expect(manifestServerVersion('1.2-beta')).toBe('1.2.0-beta');
    expect(manifestServerVersion('dev')).toBe('0.0.0');
    fc.assert(
      fc.property(fc.string(), (version) => {
        expect(pattern.test(manifestServerVersion(version))).toBe(true);
      }),
    );
  });

  it('MAN-4: homepages are absolute http(s) URLs or left out', () => {
    expect(httpUrl('https://shop.example/docs')).toBe('https://shop.example/docs');
    expect(httpUrl('https://exämple.com/ä')).toBe('https://xn--exmple-cua.com/%C3%A4');
    expect(httpUrl('ftp://shop.example')).toBeUndefined();
    expect(httpUrl('/docs')).toBeUndefined();
    expect(httpUrl(undefined)).toBeUndefined();
  });

  it('MAN-5: tool names follow the seed pattern', () => {
    expect(isListableToolName('search_issues')).toBe(true);
    expect(isListableToolName('searchIssues')).toBe(false);
    expect(isListableToolName('search-issues')).toBe(false);
    expect(isListableToolName('1st')).toBe(false);
  });

  it("MAN-15: the author's Tool._meta entry is checked field by field", () => {
    expect(parseManifestToolMeta(undefined)).toEqual({ ok: true, value: undefined });
    expect(parseManifestToolMeta({ supports_pagination: true, other: 1 })).toEqual({
      ok: true,
      value: { supports_pagination: true },
    });
    expect(parseManifestToolMeta({ supports_pagination: 'yes' })).toMatchObject({
      ok: false,
      pointer: '/supports_pagination',
    });
    expect(parseManifestToolMeta([])).toMatchObject({ ok: false, pointer: '' });
  });

  it('MAN-7 MAN-8: odd identifiers and settings are ignored', () => {
    expect(supportedExtensionsOf(['not an id', 'com.example/errors', extensionId('manifest')])).toEqual([]);
    expect(scopesFromPermissions('nope')).toEqual({ scopes: [], sessionTtlSeconds: undefined });
    expect(scopesFromPermissions({ scopes: 'x', session_ttl_seconds: 1.5 })).toEqual({
      scopes: [],
      sessionTtlSeconds: undefined,
    });
  });

  it('MAN-18: slow means the given latency class or slower', () => {
    const { manifest } = buildServiceManifest(
      source([
        { name: 'a', _meta: { [id('cost')]: { latency: 'instant' } } },
        { name: 'b', _meta: { [id('cost')]: { latency: 'seconds' } } },
        { name: 'c', _meta: { [id('cost')]: { latency: 'minutes' } } },
        { name: 'd' },
      ]),
    );
    expect(slowTools(manifest)).toEqual(['c']);
    expect(slowTools(manifest, 'seconds')).toEqual(['b', 'c']);
    expect(slowTools(manifest, 'instant')).toEqual(['a', 'b', 'c']);
  });
});
