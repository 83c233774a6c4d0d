import { extensionId, type ToolInfo } from '@ext/core';
import { seedValidators } from '@ext/core/testing';
import { describe, expect, it } from 'vitest';
import { buildServiceManifest, type ManifestSource } from './logic.js';
import { parseServiceManifest } from './parse.js';
import { costlyTools, slowTools, toolsRequiringConfirmation } from './queries.js';
import { MANIFEST_ID, type ServiceManifest, type SupportedExtensionName, type ToolDefinition } from './schema.js';
import { readSeedManifest, SEED_MANIFEST_FILES } from './test-fixtures.js';

const seedManifest = seedValidators().check('service-manifest');

/** Which of this project's extensions stands for each seed name. */
const EXTENSION_FOR: Record<SupportedExtensionName, string | undefined> = {
  streaming: 'streaming',
  progress_notifications: 'streaming',
  idempotency: 'idempotency',
  transactions: 'transactions',
  session_state: 'session-state',
  intent_hints: 'intent',
  provenance: 'provenance',
  human_in_the_loop: 'confirmation',
  data_references: 'data-references',
  subscribe_notify: 'events',
  server_recommendations: 'discovery',
  structured_errors: 'errors',
  multimodal_signatures: 'multimodal',
  conformance: undefined,
};

/**
 * The registration that would produce a manifest entry: the tool, with the
 * metadata each extension publishes under its own key (`Tool._meta[<id>]`),
 * as a server using those extensions would have it.
 */
function registration(definition: ToolDefinition): ToolInfo {
  const meta: Record<string, unknown> = {};
  if (definition.requires_confirmation !== undefined || definition.risk_level !== undefined) {
    meta[extensionId('confirmation')] = {
      requires_confirmation: definition.requires_confirmation ?? false,
      risk_level: definition.risk_level ?? 'safe',
      ...(definition.confirmation_message === undefined
        ? {}
        : { confirmation_message: definition.confirmation_message }),
    };
  }
  if (definition.cost !== undefined || definition.latency !== undefined) {
    meta[extensionId('cost')] = {
      ...(definition.cost ? { cost: definition.cost } : {}),
      ...(definition.latency ? { latency: definition.latency } : {}),
    };
  }
  if (definition.required_scopes !== undefined)
    meta[extensionId('permissions')] = { required_scopes: definition.required_scopes };
  if (definition.supports_streaming === true) meta[extensionId('streaming')] = { checkpoints: false };
  if (definition.supports_pagination !== undefined)
    meta[MANIFEST_ID] = { supports_pagination: definition.supports_pagination };
  if (definition.input_types ?? definition.output_types ?? definition.max_input_size_bytes) {
    meta[extensionId('multimodal')] = {
      ...(definition.input_types ? { input_types: definition.input_types } : {}),
      ...(definition.output_types ? { output_types: definition.output_types } : {}),
      ...(definition.max_input_size_bytes === undefined
        ? {}
        : { max_input_size_bytes: definition.max_input_size_bytes }),
    };
  }
  return {
    name: definition.name,
    description: definition.description,
    annotations: definition.idempotent === true ? { idempotentHint: true } : undefined,
    _meta: meta,
    inputJsonSchema: definition.input_schema,
    outputJsonSchema: definition.output_schema,
  };
}

/** The server a seed example describes, as a manifest source. */
function sourceFor(example: ServiceManifest): ManifestSource {
  const capabilities: Record<string, Record<string, unknown>> = {};
  for (const name of example.supported_extensions ?? []) {
    const extension = EXTENSION_FOR[name];
    if (extension !== undefined) capabilities[extensionId(extension)] = { version: '1.0' };
  }
  return {
    identity: {
      name: example.server.name,
      version: example.server.version,
      description: example.server.description,
      websiteUrl: example.server.homepage,
    },
    tools: example.tools.map(registration),
    decorate: (tool) => ({ _meta: tool._meta ?? {}, annotations: tool.annotations }),
    capabilities,
    protocolVersion: example.server.mcp_spec_version,
  };
}

const byName = (a: ToolDefinition, b: ToolDefinition): number => a.name.localeCompare(b.name);

/** A tool entry with the seed schema's declared defaults filled in: an absent field means its default. */
function withDefaults(tool: ToolDefinition): ToolDefinition {
  return {
    idempotent: false,
    requires_confirmation: false,
    risk_level: 'safe',
    supports_streaming: false,
    supports_pagination: false,
    ...tool,
  };
}

const normalized = (tools: readonly ToolDefinition[]): ToolDefinition[] => tools.map(withDefaults).sort(byName);

describe.each(SEED_MANIFEST_FILES)('seed example %s', (file) => {
  const raw = readSeedManifest(file);

  it('MAN-3: is valid against our schema and the seed schema, and survives a JSON round trip unchanged', () => {
    expect(seedManifest(raw).errors).toBe('');
    const parsed = parseServiceManifest(raw);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(JSON.parse(JSON.stringify(parsed.value))).toEqual(raw);
  });

  it('MAN-4 to MAN-9: is reproduced by assembling it from the registrations that would describe it', () => {
    const parsed = parseServiceManifest(raw);
    if (!parsed.ok) throw new Error(parsed.message);
    const example = parsed.value;
    const { manifest, unlistable } = buildServiceManifest(sourceFor(example), {
      auth: example.auth,
      rateLimits: example.rate_limits,
      recommendations: example.recommendations,
    });
    expect(unlistable).toEqual([]);
    expect(seedManifest(manifest).errors).toBe('');
    const { extensions, ...comparable } = manifest;
    expect(Object.keys(extensions ?? {}).length).toBeGreaterThan(0);
    // Tools come sorted by name, extensions in the seed's order; an absent field equals the seed's default.
    expect({ ...comparable, tools: normalized(comparable.tools) }).toEqual({
      ...example,
      tools: normalized(example.tools),
      supported_extensions: [...(example.supported_extensions ?? [])].sort(
        (a, b) => manifestOrder.indexOf(a) - manifestOrder.indexOf(b),
      ),
    });
  });

  it('MAN-18: answers which tools need confirmation, cost something, or are slow', () => {
    const parsed = parseServiceManifest(raw);
    if (!parsed.ok) throw new Error(parsed.message);
    const example = parsed.value;
    expect(toolsRequiringConfirmation(example)).toEqual(
      example.tools.filter((tool) => tool.requires_confirmation === true).map((tool) => tool.name),
    );
    expect(costlyTools(example)).toEqual(
      example.tools.filter((tool) => tool.cost !== undefined && tool.cost.category !== 'free').map((tool) => tool.name),
    );
    expect(slowTools(example)).toEqual(
      example.tools.filter((tool) => tool.latency === 'minutes').map((tool) => tool.name),
    );
  });
});

const manifestOrder: readonly string[] = Object.keys(EXTENSION_FOR);

describe('the seed examples as a set', () => {
  it('MAN-18: the GitHub example gates merge_pr and delete_repo, meters search_code', () => {
    const raw = readSeedManifest('github-server-manifest.json');
    const parsed = parseServiceManifest(raw);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(toolsRequiringConfirmation(parsed.value)).toEqual(['merge_pr', 'delete_repo']);
    expect(costlyTools(parsed.value)).toEqual(['search_code']);
    expect(slowTools(parsed.value, 'seconds')).toEqual(['create_pr', 'merge_pr', 'delete_repo', 'search_code']);
  });
});
