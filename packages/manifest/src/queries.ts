/** Questions a client asks of a manifest: which tools need approval, cost something, or are slow. Pure. */
import { LATENCY_CLASSES, type LatencyClass, type ServiceManifest, type ToolDefinition } from './schema.js';

/** Names of the tools whose calls need the user's approval first. */
export function toolsRequiringConfirmation(manifest: ServiceManifest): string[] {
  return manifest.tools.filter((tool) => tool.requires_confirmation === true).map((tool) => tool.name);
}

/** Names of the tools that cost something: metered, or needing approval of the cost. */
export function costlyTools(manifest: ServiceManifest): string[] {
  return manifest.tools
    .filter((tool) => tool.cost?.category === 'metered' || tool.cost?.category === 'requires_approval')
    .map((tool) => tool.name);
}

/** Names of the tools whose latency class is `atLeast` or slower (default: minutes). */
export function slowTools(manifest: ServiceManifest, atLeast: LatencyClass = 'minutes'): string[] {
  const threshold = LATENCY_CLASSES.indexOf(atLeast);
  return manifest.tools
    .filter((tool) => tool.latency !== undefined && LATENCY_CLASSES.indexOf(tool.latency) >= threshold)
    .map((tool) => tool.name);
}

/** One tool's entry, by name. */
export function findTool(manifest: ServiceManifest, name: string): ToolDefinition | undefined {
  return manifest.tools.find((tool) => tool.name === name);
}
