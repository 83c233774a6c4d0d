// Each field of the config, made invalid on its own: the error names that field (in YAML and in JSON).
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fieldName, GatewayConfigError, type FieldPath } from './errors.js';
import { configReference } from './json-schema.js';
import { parseConfig } from './load.js';
import { FULL_CONFIG, withValue } from './test-configs.js';

interface Case {
  /** The reference row (README) this case covers. */
  readonly row: string;
  /** Where the bad value goes in a copy of FULL_CONFIG. */
  readonly path: FieldPath;
  readonly value: unknown;
  /** The field the error must name, when not `path` itself. */
  readonly field?: FieldPath;
  /** Words the message must hold besides the field. */
  readonly says?: string;
}

const FS = ['upstreams', 'fs'];
const WEB = ['upstreams', 'web'];
const W = ['policy', 'write_*'];
const RULE = [...W, 'intent', 0];

const PATTERN = ['redact', 'patterns', 0] as const;
const OAUTH = ['identity', 'oauth'] as const;
const INTROSPECTION = [...OAUTH, 'introspection'] as const;

const CASES: readonly Case[] = [
  { row: '$schema', path: ['$schema'], value: 5, says: 'must be a string' },
  { row: 'name', path: ['name'], value: '', says: 'must be a non-empty string' },
  { row: 'upstreams', path: ['upstreams'], value: [], says: 'must be a map' },
  { row: 'upstreams', path: ['upstreams'], value: {}, says: 'at least 1 entry' },
  { row: 'upstreams', path: ['upstreams', 'a__b'], value: { command: 'x' }, says: 'without `__`' },
  { row: 'upstreams.<name>.command', path: [...FS, 'command'], value: '' },
  { row: 'upstreams.<name>.command', path: [...FS, 'command'], value: 7 },
  { row: 'upstreams.<name>.args', path: [...FS, 'args'], value: 'x', says: 'must be a list' },
  { row: 'upstreams.<name>.args', path: [...FS, 'args', 1], value: 3 },
  { row: 'upstreams.<name>.env', path: [...FS, 'env'], value: 'x' },
  { row: 'upstreams.<name>.env', path: [...FS, 'env', '1BAD'], value: 'x', says: 'environment variable name' },
  { row: 'upstreams.<name>.env', path: [...FS, 'env', 'GOOD'], value: 1 },
  { row: 'upstreams.<name>.cwd', path: [...FS, 'cwd'], value: '' },
  { row: 'upstreams.<name>.timeoutMs', path: [...FS, 'timeoutMs'], value: 0 },
  { row: 'upstreams.<name>.timeoutMs', path: [...WEB, 'timeoutMs'], value: 2 ** 31 },
  { row: 'upstreams.<name>.url', path: [...WEB, 'url'], value: 'ftp://example.com', says: '`http://` or `https://`' },
  { row: 'upstreams.<name>.headers', path: [...WEB, 'headers'], value: ['x'] },
  { row: 'upstreams.<name>.headers', path: [...WEB, 'headers', 'bad header'], value: 'x', says: 'HTTP header name' },
  {
    row: 'upstreams.<name>.protocol',
    path: [...WEB, 'protocol'],
    value: '2024-11-05',
    says: '"auto", "2026-07-28" or',
  },
  { row: 'upstreams.<name>.retry', path: [...WEB, 'retry'], value: 3, says: 'must be an object' },
  { row: 'upstreams.<name>.retry', path: [...FS, 'retry', 'tries'], value: 3, says: 'is not a known field' },
  { row: 'upstreams.<name>.retry.attempts', path: [...WEB, 'retry', 'attempts'], value: 0 },
  { row: 'upstreams.<name>.retry.attempts', path: [...FS, 'retry', 'attempts'], value: 11 },
  { row: 'upstreams.<name>.retry.initialDelayMs', path: [...WEB, 'retry', 'initialDelayMs'], value: 0 },
  { row: 'upstreams.<name>.retry.maxDelayMs', path: [...WEB, 'retry', 'maxDelayMs'], value: 60_001 },
  { row: 'upstreams.<name>.breaker', path: [...WEB, 'breaker'], value: true, says: 'must be an object' },
  { row: 'upstreams.<name>.breaker.failures', path: [...WEB, 'breaker', 'failures'], value: 0 },
  { row: 'upstreams.<name>.breaker.halfOpenAfterMs', path: [...FS, 'breaker', 'halfOpenAfterMs'], value: 99 },
  { row: 'upstreams.<name>', path: [...FS, 'commnad'], value: 'x', says: 'is not a known field' },
  { row: 'policy', path: ['policy'], value: 'all', says: 'must be a map' },
  { row: 'policy', path: ['policy', 'write file'], value: {}, says: 'wildcards' },
  { row: 'policy', path: ['policy', '[ab]*'], value: {} },
  { row: 'policy.<glob>', path: [...W, 'confrim'], value: true, says: 'is not a known field' },
  { row: 'policy.<glob>.confirm', path: [...W, 'confirm'], value: 'yes', says: 'a boolean or an object' },
  { row: 'policy.<glob>.confirm.message', path: [...W, 'confirm', 'message'], value: '' },
  { row: 'policy.<glob>.confirm.message', path: [...W, 'confirm', 'message'], value: 'x'.repeat(2001) },
  { row: 'policy.<glob>.confirm.risk', path: [...W, 'confirm', 'risk'], value: 'high' },
  { row: 'policy.<glob>.confirm.approver', path: [...W, 'confirm', 'approver'], value: 'boss' },
  {
    row: 'policy.<glob>.confirm.when',
    path: [...W, 'confirm', 'when'],
    value: '!args.path.startsWith(',
    says: 'is not a valid condition (column',
  },
  {
    row: 'policy.<glob>.confirm.when',
    path: [...W, 'confirm', 'when'],
    value: 'args.path + "x"',
    says: 'is not a valid condition',
  },
  { row: 'policy.<glob>.retry', path: [...W, 'retry'], value: 'always', says: 'a boolean or an object' },
  { row: 'policy.<glob>.retry.attempts', path: [...W, 'retry', 'attempts'], value: 0 },
  { row: 'policy.<glob>.allow', path: [...W, 'allow'], value: 'user.name == "ada"', says: 'Unknown variable: user' },
  { row: 'policy.<glob>.allow', path: [...W, 'allow'], value: 1, says: 'must be a string' },
  { row: 'policy.<glob>.cost.units', path: [...W, 'cost', 'units'], value: '"abc"', says: 'is not a valid condition' },
  { row: 'policies', path: ['policies'], value: 'git', says: 'must be a list' },
  {
    row: 'policies',
    path: ['policies', 1],
    value: 'gti',
    says: 'must be "filesystem", "memory", "everything", "git", "fetch", "time", "github", "postgres" or "slack", got "gti"',
  },
  { row: 'pins', path: ['pins'], value: 'block' },
  { row: 'pins.onToolChange', path: ['pins', 'onToolChange'], value: 'ignore' },
  { row: 'pins.lockFile', path: ['pins', 'lockFile'], value: '' },
  { row: 'policy.<glob>.scopes', path: [...W, 'scopes'], value: 'files:write' },
  { row: 'policy.<glob>.scopes', path: [...W, 'scopes', 0], value: 'files write', says: 'a scope' },
  { row: 'policy.<glob>.cost', path: [...W, 'cost'], value: 5 },
  { row: 'policy.<glob>.cost.units', path: [...W, 'cost', 'units'], value: -1, says: 'at least 0' },
  { row: 'policy.<glob>.cost.unit', path: [...W, 'cost', 'unit'], value: '' },
  { row: 'policy.<glob>.cost.category', path: [...W, 'cost', 'category'], value: 'cheap' },
  { row: 'policy.<glob>.cost.latency', path: [...W, 'cost', 'latency'], value: 'hours' },
  {
    row: 'policy.<glob>.cost.quota',
    path: [...W, 'cost', 'quota'],
    value: { limit: 5 },
    field: [...W, 'cost', 'quota', 'windowSeconds'],
    says: 'is required',
  },
  { row: 'policy.<glob>.cost.quota.limit', path: [...W, 'cost', 'quota', 'limit'], value: 0 },
  { row: 'policy.<glob>.cost.quota.limit', path: [...W, 'cost', 'quota', 'limit'], value: 1.5 },
  { row: 'policy.<glob>.cost.quota.windowSeconds', path: [...W, 'cost', 'quota', 'windowSeconds'], value: 31_536_001 },
  { row: 'policy.<glob>.cost.quota.window', path: [...W, 'cost', 'quota', 'window'], value: 'rolling' },
  {
    row: 'policy.<glob>.cost.rateLimit',
    path: [...W, 'cost', 'rateLimit', 'perWeek'],
    value: 1,
    says: 'known: perMinute, perHour, perDay',
  },
  { row: 'policy.<glob>.cost.rateLimit.perMinute', path: [...W, 'cost', 'rateLimit', 'perMinute'], value: 0 },
  { row: 'policy.<glob>.cost.rateLimit.perHour', path: [...W, 'cost', 'rateLimit', 'perHour'], value: 1.5 },
  { row: 'policy.<glob>.cost.rateLimit.perDay', path: [...W, 'cost', 'rateLimit', 'perDay'], value: '10' },
  { row: 'policy.<glob>.idempotent', path: [...W, 'idempotent'], value: 'yes', says: 'must be a boolean' },
  { row: 'policy.<glob>.intent', path: [...W, 'intent'], value: { keywords: ['x'] }, says: 'must be a list' },
  { row: 'policy.<glob>.intent', path: RULE, value: { reason: 'Why' }, says: 'needs `keywords` or a `pattern`' },
  { row: 'policy.<glob>.intent[].keywords', path: [...RULE, 'keywords'], value: [] },
  { row: 'policy.<glob>.intent[].keywords', path: [...RULE, 'keywords', 0], value: '  ', says: 'not blank' },
  {
    row: 'policy.<glob>.intent[].pattern',
    path: [...RULE, 'pattern'],
    value: '(unclosed',
    says: 'not a valid regular expression',
  },
  { row: 'policy.<glob>.intent[].pattern', path: [...RULE, 'pattern'], value: '' },
  { row: 'policy.<glob>.intent[].reason', path: [...RULE, 'reason'], value: 'x'.repeat(1001) },
  { row: 'policy.<glob>.intent[].from', path: [...RULE, 'from', 0], value: 'read*', says: 'a tool name' },
  { row: 'policy.<glob>.provenance', path: [...W, 'provenance'], value: 'disk' },
  { row: 'policy.<glob>.provenance.source', path: [...W, 'provenance', 'source'], value: '' },
  { row: 'policy.<glob>.multimodal', path: [...W, 'multimodal'], value: [] },
  { row: 'policy.<glob>.multimodal.maxInputBytes', path: [...W, 'multimodal', 'maxInputBytes'], value: 0 },
  { row: 'policy.<glob>.multimodal.mimeTypes', path: [...W, 'multimodal', 'mimeTypes', 0], value: '' },
  {
    row: 'policy.<glob>.compensate',
    path: [...W, 'compensate'],
    value: { tool: 'undo' },
    field: [...W, 'compensate', 'arguments'],
    says: 'is required',
  },
  { row: 'policy.<glob>.compensate.tool', path: [...W, 'compensate', 'tool'], value: 'delete_*', says: 'a tool name' },
  { row: 'policy.<glob>.compensate.arguments', path: [...W, 'compensate', 'arguments'], value: ['x'] },
  {
    row: 'policy.<glob>.compensate.arguments',
    path: [...W, 'compensate', 'arguments', 'path'],
    value: '$args..path',
    says: 'not a valid expression',
  },
  {
    row: 'policy.<glob>.compensate.arguments',
    path: [...W, 'compensate', 'arguments', 'deep'],
    value: { list: ['$resultx'] },
    field: [...W, 'compensate', 'arguments', 'deep', 'list', 0],
  },
  { row: 'policy.<glob>.hidden', path: [...W, 'hidden'], value: 'no' },
  { row: 'policy.<glob>.as', path: [...W, 'as'], value: 'two words' },
  { row: 'policy.<glob>.description', path: [...W, 'description'], value: '' },
  {
    row: 'policy.<glob>.annotations',
    path: [...W, 'annotations'],
    value: { dangerous: true },
    field: [...W, 'annotations', 'dangerous'],
    says: 'is not a known field',
  },
  { row: 'policy.<glob>.annotations.title', path: [...W, 'annotations', 'title'], value: '' },
  { row: 'policy.<glob>.annotations.readOnlyHint', path: [...W, 'annotations', 'readOnlyHint'], value: 'yes' },
  { row: 'policy.<glob>.annotations.destructiveHint', path: [...W, 'annotations', 'destructiveHint'], value: 1 },
  { row: 'policy.<glob>.annotations.idempotentHint', path: [...W, 'annotations', 'idempotentHint'], value: null },
  { row: 'policy.<glob>.annotations.openWorldHint', path: [...W, 'annotations', 'openWorldHint'], value: [] },
  { row: 'manifests', path: ['manifests'], value: 'github.json', says: 'must be a list' },
  { row: 'manifests', path: ['manifests', 0], value: '' },
  { row: 'defaults', path: ['defaults'], value: true },
  { row: 'defaults', path: ['defaults', 'confirm'], value: true, says: 'is not a known field' },
  { row: 'defaults.confirmDestructive', path: ['defaults', 'confirmDestructive'], value: 'yes' },
  { row: 'defaults.format', path: ['defaults', 'format'], value: 'html' },
  { row: 'defaults.verbosity', path: ['defaults', 'verbosity'], value: 'loud' },
  { row: 'store', path: ['store'], value: 'disk', says: '"memory", an object with `sqlite` or an object with `redis`' },
  { row: 'store.sqlite', path: ['store', 'sqlite'], value: '' },
  {
    row: 'store.redis',
    path: ['store'],
    value: { redis: 'http://cache' },
    field: ['store', 'redis'],
    says: '`redis://` or `rediss://`',
  },
  {
    row: 'store.commandTimeoutMs',
    path: ['store'],
    value: { redis: 'redis://cache', commandTimeoutMs: 0 },
    field: ['store', 'commandTimeoutMs'],
    says: 'an integer from 1',
  },
  {
    row: 'store.keyPrefix',
    path: ['store'],
    value: { redis: 'redis://cache', keyPrefix: '' },
    field: ['store', 'keyPrefix'],
  },
  { row: 'listen', path: ['listen'], value: 8080 },
  { row: 'listen.port', path: ['listen', 'port'], value: 65_536 },
  { row: 'listen.host', path: ['listen', 'host'], value: '' },
  { row: 'listen.path', path: ['listen', 'path'], value: 'mcp', says: 'a path starting with `/`' },
  {
    row: 'listen.allowedHosts',
    path: ['listen', 'allowedHosts'],
    value: ['mcp.example.com/mcp'],
    field: ['listen', 'allowedHosts', 0],
    says: 'a host name',
  },
  {
    row: 'listen.allowedOrigins',
    path: ['listen', 'allowedOrigins'],
    value: ['https://app.example.com/'],
    field: ['listen', 'allowedOrigins', 0],
    says: 'an origin such as',
  },
  { row: 'identity', path: ['identity'], value: 'open' },
  { row: 'identity.apiKeys', path: ['identity', 'apiKeys', 'short'], value: 'bob', says: 'at least 16 characters' },
  { row: 'identity.apiKeys', path: ['identity', 'apiKeys', 'key-0123456789abcdef'], value: '' },
  {
    row: 'identity.apiKeys',
    path: ['identity', 'apiKeys', 'key-0123456789abcdef'],
    value: { principal: 'ada', scopes: ['files write'] },
    field: ['identity', 'apiKeys', 'key-0123456789abcdef', 'scopes', 0],
    says: 'a scope',
  },
  {
    row: 'identity.apiKeys',
    path: ['identity', 'apiKeys', 'key-0123456789abcdef'],
    value: { principal: 'ada', role: 'admin' },
    field: ['identity', 'apiKeys', 'key-0123456789abcdef', 'role'],
    says: 'is not a known field (known: principal, scopes)',
  },
  { row: 'identity.anonymous', path: ['identity', 'anonymous'], value: 1 },
  { row: 'identity.oauth', path: ['identity', 'oauth'], value: 'https://idp.example.com' },
  { row: 'identity.oauth.issuer', path: [...OAUTH, 'issuer'], value: 'idp.example.com', says: 'URL' },
  {
    row: 'identity.oauth.issuer',
    path: [...OAUTH, 'issuer'],
    value: 'http://idp.example.com',
    says: 'an https URL (http only on loopback)',
  },
  { row: 'identity.oauth.audience', path: [...OAUTH, 'audience'], value: 'mcp' },
  { row: 'identity.oauth.jwksUri', path: [...OAUTH, 'jwksUri'], value: 'file:///etc/keys' },
  {
    row: 'identity.oauth.algorithms',
    path: [...OAUTH, 'algorithms'],
    value: ['HS256'],
    field: [...OAUTH, 'algorithms', 0],
    says: 'never none or HS*',
  },
  { row: 'identity.oauth.clockToleranceSeconds', path: [...OAUTH, 'clockToleranceSeconds'], value: 3600 },
  { row: 'identity.oauth.keyRefreshCooldownSeconds', path: [...OAUTH, 'keyRefreshCooldownSeconds'], value: 0 },
  {
    row: 'identity.oauth.requiredScopes',
    path: [...OAUTH, 'requiredScopes'],
    value: ['has space'],
    field: [...OAUTH, 'requiredScopes', 0],
  },
  {
    row: 'identity.oauth.introspection',
    path: [...OAUTH, 'introspection'],
    value: { clientId: 'gw' },
    field: [...INTROSPECTION, 'clientSecretEnv'],
  },
  { row: 'identity.oauth.introspection.endpoint', path: [...INTROSPECTION, 'endpoint'], value: 'nowhere' },
  { row: 'identity.oauth.introspection.clientId', path: [...INTROSPECTION, 'clientId'], value: '' },
  { row: 'identity.oauth.introspection.clientSecretEnv', path: [...INTROSPECTION, 'clientSecretEnv'], value: '1BAD' },
  { row: 'identity.oauth.introspection.cacheSeconds', path: [...INTROSPECTION, 'cacheSeconds'], value: -1 },
  {
    row: 'identity.oauth.claims',
    path: [...OAUTH, 'claims'],
    value: { subject: 'sub' },
    field: [...OAUTH, 'claims', 'subject'],
  },
  { row: 'identity.oauth.claims.principal', path: [...OAUTH, 'claims', 'principal'], value: 'a..b' },
  { row: 'identity.oauth.claims.scopes', path: [...OAUTH, 'claims', 'scopes'], value: '' },
  { row: 'identity.oauth.claims.roles', path: [...OAUTH, 'claims', 'roles'], value: 'has space' },
  { row: 'identity.stdio', path: ['identity', 'stdio'], value: ['files:write'] },
  { row: 'identity.stdio', path: ['identity', 'stdio', 'principal'], value: 'me', says: 'is not a known field' },
  { row: 'identity.stdio.scopes', path: ['identity', 'stdio', 'scopes'], value: 'files:write', says: 'must be a list' },
  { row: 'identity.stdio.scopes', path: ['identity', 'stdio', 'scopes', 0], value: 'has space' },
  { row: 'redact', path: ['redact'], value: true },
  { row: 'redact', path: ['redact', 'result'], value: false, says: 'is not a known field (known: results, patterns)' },
  { row: 'redact.results', path: ['redact', 'results'], value: 'no', says: 'must be a boolean' },
  { row: 'redact.patterns', path: ['redact', 'patterns'], value: { id: 'x', pattern: 'y' }, says: 'must be a list' },
  {
    row: 'redact.patterns',
    path: PATTERN,
    value: { id: 'acme-token' },
    field: [...PATTERN, 'pattern'],
    says: 'is required',
  },
  { row: 'redact.patterns[].id', path: [...PATTERN, 'id'], value: 'Acme Token', says: 'lower-case letters' },
  { row: 'redact.patterns[].id', path: [...PATTERN, 'id'], value: 'jwt', says: 'the id of a built-in detector' },
  {
    row: 'redact.patterns[].id',
    path: ['redact', 'patterns', 1],
    value: { id: 'acme-token', pattern: 'acme-[0-9]+' },
    field: ['redact', 'patterns', 1, 'id'],
    says: 'the id of an earlier pattern',
  },
  { row: 'redact.patterns[].pattern', path: [...PATTERN, 'pattern'], value: '', says: 'a non-empty string' },
  {
    row: 'redact.patterns[].pattern',
    path: [...PATTERN, 'pattern'],
    value: 'acme_(unclosed',
    says: 'is not a valid regular expression',
  },
  {
    row: 'redact.patterns[].pattern',
    path: [...PATTERN, 'pattern'],
    value: String.raw`\p{NotAProperty}`,
    says: 'is not a valid regular expression',
  },
  {
    row: 'redact.patterns[].pattern',
    path: [...PATTERN, 'pattern'],
    value: 'acme_[0-9]*|',
    says: 'matches the empty string',
  },
  { row: 'approvals', path: ['approvals'], value: true },
  { row: 'approvals', path: ['approvals', 'ttl'], value: 5, says: 'is not a known field' },
  { row: 'approvals.ttlSeconds', path: ['approvals', 'ttlSeconds'], value: 0 },
  { row: 'approvals.holdSeconds', path: ['approvals', 'holdSeconds'], value: 301 },
  { row: 'approvals.scope', path: ['approvals', 'scope'], value: '' },
  { row: 'approvals.path', path: ['approvals', 'path'], value: 'approvals' },
  { row: 'approvals.publicUrl', path: ['approvals', 'publicUrl'], value: 'ftp://gateway.example' },
  { row: 'approvals.webhooks', path: ['approvals', 'webhooks'], value: { url: 'https://x.example' } },
  { row: 'approvals.webhooks[].url', path: ['approvals', 'webhooks', 0, 'url'], value: 'not a url' },
  { row: 'approvals.webhooks[].secretEnv', path: ['approvals', 'webhooks', 0, 'secretEnv'], value: '1SECRET' },
  { row: 'approvals.webhooks[].format', path: ['approvals', 'webhooks', 0, 'format'], value: 'teams' },
  { row: 'approvals.linkSecretEnv', path: ['approvals', 'linkSecretEnv'], value: 'has space' },
  {
    row: 'approvals.linkSecretEnv',
    path: ['approvals'],
    value: { webhooks: [{ url: 'https://hooks.example', secretEnv: 'HOOK' }] },
    field: ['approvals', 'linkSecretEnv'],
    says: 'is required with `approvals.webhooks`',
  },
  { row: 'approvals.linkTtlSeconds', path: ['approvals', 'linkTtlSeconds'], value: 0 },
  { row: 'metrics', path: ['metrics'], value: true },
  { row: 'metrics', path: ['metrics', 'port'], value: 9464, says: 'is not a known field' },
  { row: 'metrics.path', path: ['metrics', 'path'], value: 'metrics' },
  {
    row: 'metrics.path',
    path: ['metrics'],
    value: { path: '/approvals' },
    field: ['metrics', 'path'],
    says: 'is /approvals, where the approvals page is served',
  },
  { row: 'metrics.scope', path: ['metrics', 'scope'], value: 'has space', says: 'a scope' },
  { row: 'metrics.listen', path: ['metrics', 'listen'], value: 9464 },
  { row: 'metrics.listen', path: ['metrics', 'listen'], value: { host: '::1' }, field: ['metrics', 'listen', 'port'] },
  { row: 'metrics.listen.port', path: ['metrics', 'listen', 'port'], value: 65_536 },
  { row: 'metrics.listen.port', path: ['metrics', 'listen', 'port'], value: 8080, says: "the MCP endpoint's port" },
  { row: 'metrics.listen.host', path: ['metrics', 'listen', 'host'], value: '' },
  {
    row: 'policy.<glob>.confirm.approver',
    path: ['approvals'],
    value: undefined,
    field: [...W, 'confirm', 'approver'],
    says: 'needs the `approvals` section',
  },
  { row: '', path: ['upstream'], value: {}, says: 'is not a known field (known: $schema, name, upstreams' },
];

function failure(text: string, format: 'yaml' | 'json'): GatewayConfigError {
  try {
    parseConfig(text, { format, source: `gateway.${format}` });
  } catch (error) {
    if (GatewayConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a GatewayConfigError');
}

describe('each invalid field gets an error naming it', () => {
  it.each(CASES.map((entry) => [fieldName(entry.field ?? entry.path), entry] as const))('%s', (field, entry) => {
    const document = withValue(FULL_CONFIG, entry.path, entry.value);
    for (const [format, text] of [
      ['yaml', stringify(document)],
      ['json', JSON.stringify(document, null, 2)],
    ] as const) {
      const error = failure(text, format);
      expect(error.field).toBe(field);
      expect(error.message).toContain(`gateway.${format} line `);
      expect(error.message).toContain(`: ${field} `);
      if (entry.says !== undefined) expect(error.message).toContain(entry.says);
      expect(error.line).toBeGreaterThan(0);
    }
  });

  it('covers every field of the reference', () => {
    const rows = [...configReference().matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
    const covered = new Set(CASES.map((entry) => entry.row));
    expect(rows.filter((row) => !covered.has(row ?? ''))).toEqual([]);
    expect(rows.length).toBeGreaterThan(50);
  });
});
