/** The manifest of a running server as it is now, with its etag; a tool it cannot carry is warned about once. */
import type { Logger, ServingServer } from '@ext/core';
import { buildServiceManifest, manifestEtag } from './logic.js';
import type { ManifestConfig } from './options.js';
import { MANIFEST_PACKAGE } from './schema.js';
import type { CurrentManifest } from './serving.js';

/** Assembles the manifest of `server` (`protocolVersion`: the revision of the request it answers, if any). */
export type Assemble = (
  server: ServingServer,
  protocolVersion?: string,
  sharedCallers?: boolean,
  logger?: Logger,
) => CurrentManifest;

/** An assembler for one `manifestServer()`: its configuration, its TTL, and the tools it has warned about. */
export function manifestAssembler(config: ManifestConfig, ttlSeconds: number): Assemble {
  const warned = new Set<string>();
  return (server, protocolVersion, sharedCallers = false, logger = server.composed.logger) => {
    const built = buildServiceManifest(
      {
        identity: server.identity,
        tools: server.composed.tools.values(),
        decorate: (tool) => server.composed.decorateTool(tool),
        capabilities: server.composed.capabilities(),
        protocolVersion,
        sharedCallers,
      },
      config,
    );
    for (const name of built.unlistable) {
      if (warned.has(name)) continue;
      warned.add(name);
      logger.warn(
        `${MANIFEST_PACKAGE}: tool "${name}" is left out of the service manifest, which only carries names matching ^[a-z][a-z0-9_]*$`,
      );
    }
    return { manifest: built.manifest, etag: manifestEtag(built.manifest), ttlSeconds };
  };
}
