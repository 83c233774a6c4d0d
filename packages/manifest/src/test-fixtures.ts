/** Test fixtures: arbitrary valid manifests, ways to break one, and the seed manifests under fixtures/. */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import {
  AUTH_METHODS,
  COST_CATEGORIES,
  LATENCY_CLASSES,
  MATCH_CONFIDENCES,
  RISK_LEVELS,
  SUPPORTED_EXTENSION_NAMES,
  type ServiceManifest,
} from './schema.js';

/** The five example manifests of the seed proposals (fixtures/seed-manifests, CC BY 4.0). */
export const SEED_MANIFEST_FILES = [
  'github-server-manifest.json',
  'jira-server-manifest.json',
  'linear-server-manifest.json',
  'notion-server-manifest.json',
  'slack-server-manifest.json',
] as const;

export function readSeedManifest(file: string): unknown {
  return JSON.parse(readFileSync(new URL(`./fixtures/seed-manifests/${file}`, import.meta.url), 'utf8')) as unknown;
}

const toolName = fc.stringMatching(/^[a-z][a-z0-9_]{0,12}$/);

const tool = fc.record(
  {
    name: toolName,
    description: fc.string({ maxLength: 20 }),
    input_schema: fc.constantFrom(
      { type: 'object' },
      { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    ),
    output_schema: fc.constant({ type: 'object' }),
    input_types: fc.array(fc.constantFrom('image/png', 'application/pdf'), { maxLength: 2 }),
    output_types: fc.array(fc.constantFrom('application/json', 'text/csv'), { maxLength: 2 }),
    max_input_size_bytes: fc.integer({ min: 0, max: 1e9 }),
    cost: fc.record(
      {
        category: fc.constantFrom(...COST_CATEGORIES),
        estimated_units: fc.double({ noNaN: true, noDefaultInfinity: true }),
        unit_label: fc.string({ maxLength: 10 }),
      },
      { requiredKeys: [] },
    ),
    latency: fc.constantFrom(...LATENCY_CLASSES),
    idempotent: fc.boolean(),
    requires_confirmation: fc.boolean(),
    confirmation_message: fc.string({ maxLength: 20 }),
    risk_level: fc.constantFrom(...RISK_LEVELS),
    required_scopes: fc.array(fc.constantFrom('read:a', 'write:a'), { maxLength: 2 }),
    supports_streaming: fc.boolean(),
    supports_pagination: fc.boolean(),
  },
  { requiredKeys: ['name', 'description', 'input_schema'] },
);

/** Manifests valid against the seed schema, covering every optional field. */
export const validManifest: fc.Arbitrary<ServiceManifest> = fc.record(
  {
    manifest_version: fc.constant('0.1.0' as const),
    server: fc.record(
      {
        name: fc.string({ maxLength: 12 }),
        version: fc.constantFrom('1.0.0', '2.3.4-beta.1', '0.0.1+build'),
        mcp_spec_version: fc.constantFrom('2025-11-25', '2026-07-28'),
        description: fc.string({ maxLength: 20 }),
        homepage: fc.constantFrom('https://example.com', 'http://localhost:3000/docs'),
      },
      { requiredKeys: ['name', 'version', 'mcp_spec_version'] },
    ),
    auth: fc.record(
      {
        methods: fc.subarray([...AUTH_METHODS]),
        scopes: fc.array(
          fc.record(
            {
              name: fc.string({ maxLength: 8 }),
              description: fc.string({ maxLength: 8 }),
              grants: fc.array(toolName, { maxLength: 2 }),
            },
            { requiredKeys: ['name', 'description'] },
          ),
          { maxLength: 3 },
        ),
        session_ttl_seconds: fc.integer({ min: 0, max: 86_400 }),
      },
      { requiredKeys: [] },
    ),
    tools: fc.array(tool, { maxLength: 4 }),
    supported_extensions: fc.subarray([...SUPPORTED_EXTENSION_NAMES]),
    rate_limits: fc.record(
      {
        requests_per_minute: fc.nat(),
        requests_per_day: fc.nat(),
        remaining: fc.nat(),
        resets_at: fc.constantFrom('2026-03-15T18:00:00Z', '2026-03-15T18:00:00.123+02:00'),
      },
      { requiredKeys: [] },
    ),
    recommendations: fc.array(
      fc.record(
        {
          capability: fc.string({ maxLength: 8 }),
          server_name: fc.string({ maxLength: 8 }),
          registry_url: fc.constantFrom('https://registry.example/servers/a', 'http://localhost/x'),
          auth_flow: fc.string({ maxLength: 8 }),
          match_confidence: fc.constantFrom(...MATCH_CONFIDENCES),
        },
        { requiredKeys: ['capability', 'server_name'] },
      ),
      { maxLength: 2 },
    ),
    extensions: fc.dictionary(
      fc.constantFrom('io.github.mcp-ext/errors', 'io.github.mcp-ext/cost'),
      fc.constant('1.0'),
    ),
  },
  { requiredKeys: ['manifest_version', 'server', 'tools'] },
);

/** Values that break most fields in some way (wrong type, out of an enum, not an integer, malformed date or URI). */
export const wrongValue = fc.constantFrom<unknown>(
  null,
  true,
  -1,
  1.5,
  'x',
  'Not_A_Name',
  'not a uri',
  'yesterday',
  [],
  {},
  ['x', 1],
  '0.1.1',
);

type Path = readonly (string | number)[];

/** Every path into a JSON value (object keys and array indices), the root excluded. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (Array.isArray(value))
    return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
  }
  return [];
}

/** A deep copy of `value` with the member at `path` replaced by `replacement`, or removed when it is `undefined`. */
export function mutate(value: unknown, path: Path, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (last === undefined) return replacement;
  if (replacement === undefined) {
    if (Array.isArray(parent) && typeof last === 'number') parent.splice(last, 1);
    else Reflect.deleteProperty(parent, last);
  } else {
    parent[last] = replacement;
  }
  return copy;
}
