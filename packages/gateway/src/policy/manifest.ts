/**
 * A service manifest read as policy: each tool's confirmation, cost, latency,
 * rate limits, media limits and required scopes as a config policy entry
 * under the tool's name, and the manifest's scopes as declarations. Pure.
 */
import { MANIFEST_SCHEMAS, type ServiceManifest, type ToolDefinition } from '@ext/manifest';
import Type from 'typebox';
import { configError, type ErrorPlace, type FieldPath } from '../config/errors.js';
import { explain } from '../config/explain.js';
import { SCOPE_PATTERN } from '../config/patterns.js';
import type { CostPolicy, ToolPolicy } from '../config/schema.js';

/** A scope a manifest declares: what it grants and which tools it unlocks. */
export interface ScopeDeclaration {
  readonly name: string;
  readonly description: string;
  readonly grants: readonly string[];
}

/** A manifest as policy: entries by tool name, and its scopes. */
export interface ManifestPolicy {
  /** `server.name` of the manifest. */
  readonly server: string;
  readonly source: string | undefined;
  readonly tools: ReadonlyMap<string, ToolPolicy>;
  readonly scopes: readonly ScopeDeclaration[];
}

const Scope = Type.String({ pattern: SCOPE_PATTERN });
const Positive = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/**
 * What the gateway needs beyond the manifest schema, for the fields that
 * become policy (the same limits as the config's): manifests stay open to
 * fields this does not name.
 */
const PolicyFieldsSchema = Type.Object({
  tools: Type.Array(
    Type.Object({
      cost: Type.Optional(
        Type.Object({
          estimated_units: Type.Optional(Type.Number({ minimum: 0 })),
          unit_label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
      ),
      confirmation_message: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
      required_scopes: Type.Optional(Type.Array(Scope)),
      input_types: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
      max_input_size_bytes: Type.Optional(Positive),
    }),
  ),
  auth: Type.Optional(Type.Object({ scopes: Type.Optional(Type.Array(Type.Object({ name: Scope }))) })),
  rate_limits: Type.Optional(
    Type.Object({ requests_per_minute: Type.Optional(Positive), requests_per_day: Type.Optional(Positive) }),
  ),
});

/** Where a manifest came from, for its errors. */
export interface ManifestPlace extends ErrorPlace {
  readonly lineOf?: ((path: FieldPath) => number | undefined) | undefined;
}

function check(document: unknown, place: ManifestPlace): ServiceManifest {
  const fault = explain(MANIFEST_SCHEMAS.ServiceManifest, document) ?? explain(PolicyFieldsSchema, document);
  if (fault !== undefined) throw configError(fault, { source: place.source, line: place.lineOf?.(fault.path) });
  const manifest = document as ServiceManifest;
  const seen = new Set<string>();
  for (const [index, tool] of manifest.tools.entries()) {
    if (seen.has(tool.name)) {
      const path = ['tools', index, 'name'];
      throw configError(
        { path, problem: `repeats the tool "${tool.name}"` },
        { source: place.source, line: place.lineOf?.(path) },
      );
    }
    seen.add(tool.name);
  }
  return manifest;
}

function confirmOf(tool: ToolDefinition): Pick<ToolPolicy, 'confirm'> {
  if (tool.requires_confirmation === false) return { confirm: false };
  if (tool.requires_confirmation !== true) return {};
  return {
    confirm: {
      ...(tool.risk_level !== undefined && { risk: tool.risk_level }),
      ...(tool.confirmation_message !== undefined && { message: tool.confirmation_message }),
    },
  };
}

function costOf(tool: ToolDefinition, limits: ServiceManifest['rate_limits']): Pick<ToolPolicy, 'cost'> {
  const rateLimit = {
    ...(limits?.requests_per_minute !== undefined && { perMinute: limits.requests_per_minute }),
    ...(limits?.requests_per_day !== undefined && { perDay: limits.requests_per_day }),
  };
  const hasRateLimit = Object.keys(rateLimit).length > 0;
  if (tool.cost === undefined && tool.latency === undefined && !hasRateLimit) return {};
  // A manifest that does not call a tool metered is not metering it (as the cost extension reads manifests).
  const cost: CostPolicy = { category: tool.cost?.category ?? 'free' };
  if (tool.cost?.estimated_units !== undefined) cost.units = tool.cost.estimated_units;
  if (tool.cost?.unit_label !== undefined) cost.unit = tool.cost.unit_label;
  if (tool.latency !== undefined) cost.latency = tool.latency;
  if (hasRateLimit) cost.rateLimit = rateLimit;
  return { cost };
}

function multimodalOf(tool: ToolDefinition): Pick<ToolPolicy, 'multimodal'> {
  if (tool.input_types === undefined && tool.max_input_size_bytes === undefined) return {};
  return {
    multimodal: {
      ...(tool.input_types !== undefined && { mimeTypes: [...tool.input_types] }),
      ...(tool.max_input_size_bytes !== undefined && { maxInputBytes: tool.max_input_size_bytes }),
    },
  };
}

/** The policy entry a manifest gives one tool. */
export function toolPolicyOf(tool: ToolDefinition, limits?: ServiceManifest['rate_limits']): ToolPolicy {
  return {
    ...confirmOf(tool),
    ...costOf(tool, limits),
    ...(tool.required_scopes !== undefined && { scopes: [...tool.required_scopes] }),
    ...multimodalOf(tool),
  };
}

/**
 * `document` (a parsed manifest file) as policy. Throws a
 * `GatewayConfigError` naming the manifest's field at fault
 * (`tools[2].risk_level`), relative to `place.source`.
 */
export function manifestPolicy(document: unknown, place: ManifestPlace = {}): ManifestPolicy {
  const manifest = check(document, place);
  const tools = new Map(manifest.tools.map((tool) => [tool.name, toolPolicyOf(tool, manifest.rate_limits)] as const));
  const scopes = (manifest.auth?.scopes ?? []).map((scope) => ({
    name: scope.name,
    description: scope.description,
    grants: scope.grants ?? [],
  }));
  return { server: manifest.server.name, source: place.source, tools, scopes };
}

/** Every scope the manifests declare, once by name (a later manifest's declaration wins). */
export function declaredScopes(manifests: readonly ManifestPolicy[]): ScopeDeclaration[] {
  const byName = new Map<string, ScopeDeclaration>();
  for (const scope of manifests.flatMap((manifest) => manifest.scopes)) byName.set(scope.name, scope);
  return [...byName.values()];
}
