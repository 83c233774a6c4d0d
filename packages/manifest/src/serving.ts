/** The manifest of a composed server outside any request, through the server half that assembles it. */
import { ConfigurationError, type ServerExtension, type ServingServer } from '@ext/core';
import { MANIFEST_PACKAGE, type ServiceManifest } from './schema.js';

/** A manifest as served at one moment, with its etag. */
export interface CurrentManifest {
  readonly manifest: ServiceManifest;
  readonly etag: string;
  readonly ttlSeconds: number;
}

/** The server half, which can also assemble the manifest outside a request (for the server card). */
export interface ManifestServerExtension extends ServerExtension {
  /** The manifest of a server as composed and registered now; `protocolVersion` is the revision it answers in, if any. */
  readonly currentManifest: (
    server: ServingServer,
    protocolVersion?: string,
    sharedCallers?: boolean,
  ) => CurrentManifest;
}

function isManifestHalf(extension: ServerExtension): extension is ManifestServerExtension {
  return (
    extension.name === MANIFEST_PACKAGE &&
    typeof (extension as Partial<ManifestServerExtension>).currentManifest === 'function'
  );
}

/**
 * The manifest of a composed server outside any request (a server card, a
 * file written at build time). Throws a `ConfigurationError` when
 * `manifestServer()` is not among the composed extensions.
 */
export function getServiceManifest(
  server: ServingServer,
  protocolVersion?: string,
  sharedCallers?: boolean,
): CurrentManifest {
  const half = server.composed.extensions.find(isManifestHalf);
  if (half === undefined) {
    throw new ConfigurationError(
      'MISSING_DEPENDENCY',
      `${MANIFEST_PACKAGE}: compose manifestServer() to assemble a service manifest`,
    );
  }
  return half.currentManifest(server, protocolVersion, sharedCallers);
}
