/**
 * Assembling the service manifest from what a server registered and
 * advertised: one entry per tool, the server's identity, auth, extensions,
 * and the etag and `<id>/get` answer. Pure.
 */
import { canonicalHash, isRecord, VENDOR_PREFIX } from '@ext/core/kit';
import { extensionId, parseExtensionId, type ToolInfo } from '@ext/core';
import {
  AUTH_METHODS,
  COST_CATEGORIES,
  LATENCY_CLASSES,
  MANIFEST_DOCUMENT_VERSION,
  MANIFEST_ID,
  RISK_LEVELS,
  SUPPORTED_EXTENSION_NAMES,
  TOOL_NAME_PATTERN_SOURCE,
  type AuthCapabilities,
  type CostInfo,
  type ManifestGetResult,
  type ScopeDefinition,
  type ServiceManifest,
  type SupportedExtensionName,
  type ToolDefinition,
} from './schema.js';
import { httpUrl } from './http-url.js';
import type { ManifestConfig } from './options.js';

/** The MCP revision a manifest names when neither the options nor the request say (the newest both SDK lines speak). */
export const DEFAULT_MCP_SPEC_VERSION = '2025-11-25';

const TOOL_NAME = new RegExp(TOOL_NAME_PATTERN_SOURCE);

/** The extension names of this project whose seed name differs, or that imply more than one seed name. */
const SEED_NAMES: Readonly<Record<string, readonly SupportedExtensionName[]>> = {
  errors: ['structured_errors'],
  streaming: ['streaming', 'progress_notifications'],
  idempotency: ['idempotency'],
  transactions: ['transactions'],
  'session-state': ['session_state'],
  intent: ['intent_hints'],
  provenance: ['provenance'],
  confirmation: ['human_in_the_loop'],
  'data-references': ['data_references'],
  events: ['subscribe_notify'],
  discovery: ['server_recommendations'],
  multimodal: ['multimodal_signatures'],
};

/** Where other extensions publish per-tool metadata (their wire 1.x shapes are read; nothing is imported). */
const META_KEYS = {
  confirmation: extensionId('confirmation'),
  cost: extensionId('cost'),
  idempotency: extensionId('idempotency'),
  multimodal: extensionId('multimodal'),
  permissions: extensionId('permissions'),
  streaming: extensionId('streaming'),
} as const;

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function oneOf<T extends string>(values: readonly T[], value: unknown): T | undefined {
  return typeof value === 'string' && (values as readonly string[]).includes(value) ? (value as T) : undefined;
}

/** Whether a manifest can carry a tool of this name (seed pattern `^[a-z][a-z0-9_]*$`). */
export function isListableToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}

/**
 * A server version as the manifest must carry it (starting `<int>.<int>.<int>`):
 * kept when it does, completed when it starts with one or two numbers
 * (`1.2` -> `1.2.0`, `v2` -> `2.0.0`), `0.0.0` otherwise.
 */
export function manifestServerVersion(version: string): string {
  if (/^\d+\.\d+\.\d+/.test(version)) return version;
  const match = /^v?(\d+)(?:\.(\d+))?(.*)$/.exec(version);
  if (!match) return '0.0.0';
  const [, major = '0', minor, rest = ''] = match;
  return `${major}.${minor ?? '0'}.0${rest.startsWith('.') ? '' : rest}`;
}

function costOf(meta: Record<string, unknown> | undefined): CostInfo | undefined {
  const cost = isRecord(meta?.cost) ? meta.cost : undefined;
  if (cost === undefined) return undefined;
  const out: CostInfo = {};
  const category = oneOf(COST_CATEGORIES, cost.category);
  if (category !== undefined) out.category = category;
  if (typeof cost.estimated_units === 'number' && Number.isFinite(cost.estimated_units))
    out.estimated_units = cost.estimated_units;
  if (typeof cost.unit_label === 'string') out.unit_label = cost.unit_label;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** What a tool looks like once every composed extension decorated it (`ComposedServer.decorateTool`). */
export interface DecoratedTool {
  readonly _meta: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * One manifest entry from a registered tool and the metadata every
 * extension contributed to it (MAN-5, MAN-6). Fields are read defensively:
 * a value of the wrong shape is left out, never passed on.
 */
export function toolDefinition(tool: ToolInfo, decorated: DecoratedTool): ToolDefinition {
  const meta = decorated._meta;
  const annotations = decorated.annotations ?? {};
  const read = (key: string): Record<string, unknown> | undefined => (isRecord(meta[key]) ? meta[key] : undefined);
  const confirmation = read(META_KEYS.confirmation);
  const cost = read(META_KEYS.cost);
  const multimodal = read(META_KEYS.multimodal);
  const permissions = read(META_KEYS.permissions);
  const own = read(MANIFEST_ID);

  const entry: ToolDefinition = {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    input_schema: tool.inputJsonSchema ?? { type: 'object', properties: {} },
  };
  if (tool.outputJsonSchema !== undefined) entry.output_schema = tool.outputJsonSchema;

  if (isStringArray(multimodal?.input_types)) entry.input_types = [...multimodal.input_types];
  if (isStringArray(multimodal?.output_types)) entry.output_types = [...multimodal.output_types];
  const maxSize = multimodal?.max_input_size_bytes;
  if (typeof maxSize === 'number' && Number.isSafeInteger(maxSize)) entry.max_input_size_bytes = maxSize;

  const costInfo = costOf(cost);
  if (costInfo !== undefined) entry.cost = costInfo;
  const latency = oneOf(LATENCY_CLASSES, cost?.latency);
  if (latency !== undefined) entry.latency = latency;

  entry.idempotent =
    annotations.readOnlyHint === true ||
    annotations.idempotentHint === true ||
    read(META_KEYS.idempotency)?.idempotent_capable === true;

  entry.requires_confirmation = confirmation?.requires_confirmation === true;
  if (typeof confirmation?.confirmation_message === 'string')
    entry.confirmation_message = confirmation.confirmation_message;
  const risk =
    oneOf(RISK_LEVELS, confirmation?.risk_level) ??
    (annotations.readOnlyHint === true ? 'safe' : annotations.destructiveHint === true ? 'destructive' : undefined);
  if (risk !== undefined) entry.risk_level = risk;

  if (isStringArray(permissions?.required_scopes)) entry.required_scopes = [...permissions.required_scopes];
  if (read(META_KEYS.streaming) !== undefined) entry.supports_streaming = true;
  if (typeof own?.supports_pagination === 'boolean') entry.supports_pagination = own.supports_pagination;
  return entry;
}

/** The seed's `supported_extensions` names for the advertised identifiers, in the seed's order (MAN-7). */
export function supportedExtensionsOf(ids: Iterable<string>): SupportedExtensionName[] {
  const names = new Set<SupportedExtensionName>();
  for (const id of ids) {
    const parsed = parseExtensionId(id);
    if (!parsed.ok || parsed.value.prefix !== VENDOR_PREFIX) continue;
    for (const name of SEED_NAMES[parsed.value.baseName] ?? []) names.add(name);
  }
  return SUPPORTED_EXTENSION_NAMES.filter((name) => names.has(name));
}

/** The manifest's scopes from the permissions extension's advertised settings (its `tools` become `grants`). */
export function scopesFromPermissions(settings: unknown): {
  scopes: ScopeDefinition[];
  sessionTtlSeconds: number | undefined;
} {
  const record = isRecord(settings) ? settings : {};
  const scopes = Array.isArray(record.scopes)
    ? record.scopes.flatMap((scope): ScopeDefinition[] => {
        if (!isRecord(scope) || typeof scope.name !== 'string' || typeof scope.description !== 'string') return [];
        return [
          {
            name: scope.name,
            description: scope.description,
            ...(isStringArray(scope.tools) ? { grants: [...scope.tools] } : {}),
          },
        ];
      })
    : [];
  const ttl = record.session_ttl_seconds;
  return { scopes, sessionTtlSeconds: typeof ttl === 'number' && Number.isSafeInteger(ttl) ? ttl : undefined };
}

/** What a manifest is assembled from: the server as composed and registered. */
export interface ManifestSource {
  readonly identity: {
    readonly name: string;
    readonly version: string;
    readonly description?: string | undefined;
    readonly websiteUrl?: string | undefined;
  };
  readonly tools: Iterable<ToolInfo>;
  decorate(tool: ToolInfo): DecoratedTool;
  /** `capabilities.extensions` as advertised. */
  readonly capabilities: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The protocol revision of the request the manifest answers, when known. */
  readonly protocolVersion?: string | undefined;
  /**
   * The endpoint serves every unidentified caller as one shared principal
   * (core's `anonymous: 'shared'`): the manifest then lists the auth method
   * `none`, saying callers are not told apart.
   */
  readonly sharedCallers?: boolean | undefined;
}

export interface BuiltManifest {
  readonly manifest: ServiceManifest;
  /** Registered tools left out because a manifest cannot carry their name (MAN-5). */
  readonly unlistable: readonly string[];
}

function authOf(source: ManifestSource, config: ManifestConfig): AuthCapabilities | undefined {
  const fromPermissions = scopesFromPermissions(source.capabilities[META_KEYS.permissions]);
  const scopes = [...fromPermissions.scopes];
  for (const scope of config.auth?.scopes ?? []) {
    if (!scopes.some((known) => known.name === scope.name)) scopes.push(scope);
  }
  const auth: AuthCapabilities = {};
  const methods = (config.auth?.methods ?? []).filter((method) => oneOf(AUTH_METHODS, method) !== undefined);
  if (source.sharedCallers === true && !methods.includes('none')) methods.push('none');
  if (methods.length > 0) auth.methods = [...methods];
  if (scopes.length > 0) auth.scopes = scopes;
  const ttl = config.auth?.session_ttl_seconds ?? fromPermissions.sessionTtlSeconds;
  if (ttl !== undefined) auth.session_ttl_seconds = ttl;
  return Object.keys(auth).length > 0 ? auth : undefined;
}

/**
 * Assembles the service manifest from what is registered (MAN-3 to MAN-9):
 * identity from the SDK server, tools with their input/output schemas and
 * every extension's per-tool metadata, supported extensions and scopes from
 * what is advertised, plus the author's configured auth methods, rate limits
 * and recommendations. Deterministic: tools sorted by name.
 */
export function buildServiceManifest(source: ManifestSource, config: ManifestConfig = {}): BuiltManifest {
  const include = config.include ?? (() => true);
  const unlistable: string[] = [];
  const tools: ToolDefinition[] = [];
  for (const tool of source.tools) {
    if (!include(tool)) continue;
    if (!isListableToolName(tool.name)) {
      unlistable.push(tool.name);
      continue;
    }
    tools.push(toolDefinition(tool, source.decorate(tool)));
  }
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const server: ServiceManifest['server'] = {
    name: source.identity.name,
    version: manifestServerVersion(source.identity.version),
    mcp_spec_version: config.mcpSpecVersion ?? source.protocolVersion ?? DEFAULT_MCP_SPEC_VERSION,
  };
  const description = config.description ?? source.identity.description;
  if (description !== undefined) server.description = description;
  const homepage = httpUrl(config.homepage ?? source.identity.websiteUrl);
  if (homepage !== undefined) server.homepage = homepage;

  const manifest: ServiceManifest = { manifest_version: MANIFEST_DOCUMENT_VERSION, server, tools };
  const auth = authOf(source, config);
  if (auth !== undefined) manifest.auth = auth;
  const ids = Object.keys(source.capabilities).sort();
  manifest.supported_extensions = supportedExtensionsOf(ids);
  if (config.rateLimits !== undefined && Object.keys(config.rateLimits).length > 0)
    manifest.rate_limits = { ...config.rateLimits };
  if (config.recommendations !== undefined && config.recommendations.length > 0) {
    manifest.recommendations = config.recommendations.map((recommendation) => ({ ...recommendation }));
  }
  manifest.extensions = Object.fromEntries(
    ids.flatMap((id) => {
      const version = source.capabilities[id]?.version;
      return typeof version === 'string' ? [[id, version]] : [];
    }),
  );
  return { manifest, unlistable };
}

/** The etag of a manifest: hex SHA-256 of its RFC 8785 canonical JSON (MAN-10). */
export function manifestEtag(manifest: ServiceManifest): string {
  return canonicalHash(manifest);
}

/** The answer to `<id>/get` for a client holding `clientEtag` (MAN-10, MAN-11). */
export function getAnswer(
  manifest: ServiceManifest,
  etag: string,
  ttlSeconds: number,
  clientEtag: string | undefined,
): ManifestGetResult {
  return clientEtag === etag
    ? { etag, ttl_seconds: ttlSeconds, not_modified: true }
    : { etag, ttl_seconds: ttlSeconds, not_modified: false, manifest };
}
