/** Test fixtures: a config that uses every field, the seed manifests, and a way to change one field of a copy. */
import { readFileSync } from 'node:fs';
import type { FieldPath } from './errors.js';

/** A valid config in which every field of the schema appears once. */
export const FULL_CONFIG = {
  $schema: 'https://mcp-ext.github.io/schemas/gateway/1.0/gateway.schema.json',
  name: 'demo-gateway',
  upstreams: {
    fs: { command: 'npx', args: ['-y', 'files'], env: { LOG_LEVEL: 'info' }, cwd: 'work', timeoutMs: 10_000 },
    web: {
      url: 'http://127.0.0.1:3000/mcp',
      headers: { Authorization: 'Bearer token' },
      protocol: 'auto',
      timeoutMs: 5000,
      retry: { attempts: 4, initialDelayMs: 200, maxDelayMs: 1000 },
      breaker: { failures: 3, halfOpenAfterMs: 20_000 },
    },
  },
  policy: {
    '*': { idempotent: true },
    'write_*': {
      confirm: { message: 'Write {path}?', risk: 'reversible', approver: 'either' },
      scopes: ['files:write'],
      cost: {
        units: 2,
        unit: 'writes',
        category: 'metered',
        latency: 'seconds',
        quota: { limit: 100, windowSeconds: 3600, window: 'sliding' },
        rateLimit: { perMinute: 10, perHour: 100, perDay: 1000 },
      },
      idempotent: true,
      retry: { attempts: 2 },
      intent: [{ keywords: ['save'], pattern: '^write', reason: 'It writes files.', from: ['read_file'] }],
      provenance: { source: 'filesystem' },
      multimodal: { maxInputBytes: 1_000_000, mimeTypes: ['image/png'] },
      compensate: {
        tool: 'delete_file',
        arguments: { path: '$args.path', ids: '$result.structuredContent.items[*].id', note: 'undo', price: '$$5' },
      },
      hidden: false,
    },
  },
  policies: ['filesystem', 'git'],
  manifests: ['manifests/github.json'],
  defaults: { confirmDestructive: true, format: 'markdown', verbosity: 'standard' },
  store: { sqlite: 'gateway.db' },
  listen: { port: 8080, host: '127.0.0.1', path: '/mcp' },
  identity: {
    apiKeys: { 'key-0123456789abcdef': 'alice' },
    anonymous: false,
    oauth: {
      issuer: 'https://idp.example.com',
      audience: 'https://mcp.example.com/mcp',
      jwksUri: 'https://idp.example.com/jwks',
      algorithms: ['RS256', 'ES256'],
      clockToleranceSeconds: 30,
      keyRefreshCooldownSeconds: 30,
      requiredScopes: ['mcp:use'],
      introspection: {
        endpoint: 'https://idp.example.com/introspect',
        clientId: 'gateway',
        clientSecretEnv: 'GATEWAY_OAUTH_SECRET',
        cacheSeconds: 30,
      },
      claims: { principal: 'sub', scopes: 'scope', roles: 'realm_access.roles' },
    },
    stdio: { scopes: ['files:write'] },
  },
  redact: { results: true, patterns: [{ id: 'acme-token', pattern: 'acme_[a-z0-9]{16}' }] },
  approvals: {
    ttlSeconds: 900,
    holdSeconds: 20,
    scope: 'approvals:decide',
    path: '/approvals',
    publicUrl: 'https://gateway.example',
    webhooks: [{ url: 'https://hooks.example/approvals', secretEnv: 'APPROVALS_WEBHOOK_SECRET', format: 'slack' }],
    linkSecretEnv: 'APPROVALS_LINK_SECRET',
    linkTtlSeconds: 600,
  },
  metrics: { path: '/metrics', scope: 'gateway:metrics', listen: { port: 9464, host: '127.0.0.1' } },
} as const;

/** A deep copy of `value` (plain data only). */
export function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** A copy of `document` with the value at `path` replaced by `value` (created along the way if missing). */
export function withValue(document: unknown, path: FieldPath, value: unknown): unknown {
  const root = { root: copy(document) } as Record<string, unknown>;
  let node: Record<string | number, unknown> = root;
  const steps = ['root', ...path];
  for (const [index, step] of steps.entries()) {
    if (index === steps.length - 1) {
      node[step] = value;
      break;
    }
    const next = node[step];
    node = (typeof next === 'object' && next !== null ? next : (node[step] = {})) as Record<string | number, unknown>;
  }
  return root.root;
}

/** The five example manifests of the seed proposals (fixtures/manifests, CC BY 4.0). */
export const SEED_MANIFEST_FILES = [
  'github-server-manifest.json',
  'jira-server-manifest.json',
  'linear-server-manifest.json',
  'notion-server-manifest.json',
  'slack-server-manifest.json',
] as const;

/** Where the seed manifests are, as a URL of their folder. */
export const MANIFEST_FOLDER = new URL('../../fixtures/manifests/', import.meta.url);

export function readSeedManifest(file: string): unknown {
  return JSON.parse(readFileSync(new URL(file, MANIFEST_FOLDER), 'utf8')) as unknown;
}
