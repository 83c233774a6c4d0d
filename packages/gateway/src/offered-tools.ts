/**
 * The tools a gateway offers from its upstreams' lists: each tool's policy
 * resolved, hidden ones left out, and each shaped as its policy says:
 * renamed (`as`), described, annotated (GW-51). Pure.
 */
import { jsonPointer } from '@ext/core/kit';
import { fieldName, GatewayConfigError } from './config/errors.js';
import type { GatewayConfig } from './config/schema.js';
import type { GatewayTool } from './gateway-tool.js';
import type { ManifestPolicy } from './policy/manifest.js';
import { resolveToolPolicy, type ResolvedToolPolicy } from './policy/resolve.js';
import type { ExposedTool } from './upstream/index.js';

/** A name two tools would be offered under: refused, naming the `as` that caused it. */
function nameTaken(tool: GatewayTool, other: GatewayTool): GatewayConfigError {
  const path = tool.policy.shape?.as?.path ?? other.policy.shape?.as?.path ?? ['policy'];
  const field = fieldName(path);
  return new GatewayConfigError(
    `${field}: two tools would be offered as "${tool.name}" (${other.upstream}/${other.upstreamName} and ${tool.upstream}/${tool.upstreamName}); give each a name of its own`,
    { field, pointer: jsonPointer(...path) },
  );
}

/** The upstream `tool` as offered under `policy`: its name, description and annotations as the policy shapes them. */
function offered(tool: ExposedTool, policy: ResolvedToolPolicy): GatewayTool {
  const shape = policy.shape;
  const annotations =
    shape?.annotations === undefined ? tool.annotations : { ...tool.annotations, ...shape.annotations };
  return {
    name: shape?.as?.name ?? tool.name,
    upstream: tool.upstream,
    upstreamName: tool.originalName,
    title: tool.title,
    description: shape?.description ?? tool.description,
    inputSchema: tool.inputSchema,
    annotations,
    policy,
  };
}

/**
 * The tools the gateway offers from `exposed`, each with its resolved
 * policy. Throws a `GatewayConfigError` when two tools would be offered
 * under one name (an `as` onto another tool's name, or one `as` matching
 * several tools).
 */
export function offeredTools(
  config: GatewayConfig,
  manifests: readonly ManifestPolicy[],
  exposed: readonly ExposedTool[],
): GatewayTool[] {
  const byName = new Map<string, GatewayTool>();
  for (const tool of exposed) {
    const policy = resolveToolPolicy({
      config,
      manifests,
      tool: { name: tool.originalName, exposedName: tool.name, annotations: tool.annotations },
    });
    if (policy === undefined) continue;
    const shaped = offered(tool, policy);
    const other = byName.get(shaped.name);
    if (other !== undefined) throw nameTaken(shaped, other);
    byName.set(shaped.name, shaped);
  }
  return [...byName.values()];
}
