import { ConfigurationError, ExtensionError, type ClientExtension, type ExtendedClient } from '@ext/core';
import { costlyTools, parseGetResult, slowTools, toolsRequiringConfirmation } from './logic.js';
import {
  MANIFEST_ID,
  MANIFEST_PACKAGE,
  MANIFEST_WIRE_VERSION,
  manifestChangedMethod,
  manifestGetMethod,
  ManifestServerSettingsSchema,
  type LatencyClass,
  type ManifestGetResult,
  type ServiceManifest,
} from './schema.js';

/** The client half: advertises the extension, so the server tells this client when its manifest changes. */
export function manifestClient(): ClientExtension {
  return {
    side: 'client',
    name: MANIFEST_PACKAGE,
    ids: [MANIFEST_ID],
    settings: { version: MANIFEST_WIRE_VERSION },
    peerSettings: ManifestServerSettingsSchema,
  };
}

/**
 * One `<id>/get` round trip, validated: the full answer, or `not_modified`
 * when `etag` is current. `undefined` when the server does not negotiate
 * the extension. A malformed answer throws `INVALID_MANIFEST` naming the
 * JSON Pointer of the first violation.
 */
export async function fetchManifest(client: ExtendedClient, etag?: string): Promise<ManifestGetResult | undefined> {
  const negotiated = client.negotiated(MANIFEST_PACKAGE);
  if (negotiated === undefined) return undefined;
  const answer = await client.request(manifestGetMethod(negotiated.id), etag === undefined ? {} : { etag });
  const parsed = parseGetResult(answer);
  if (!parsed.ok) {
    throw new ExtensionError(
      'permanent',
      'INVALID_MANIFEST',
      `${negotiated.id}/get answered a malformed result: ${parsed.pointer || '/'} ${parsed.message}`,
      {
        userActionable: false,
        details: { pointer: parsed.pointer },
      },
    );
  }
  return parsed.value;
}

export interface ManifestReaderOptions {
  /** Fetch the new manifest as soon as the server says it changed. Default `true`. */
  readonly refreshOnChange?: boolean | undefined;
  /** Receives failures no caller awaits (a refresh after a notification, a listener that threw). Default: a warning on the client's logger. */
  readonly onError?: ((error: unknown) => void) | undefined;
  /** Clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/** The cached manifest and what the server said about it. */
export interface ManifestSnapshot {
  readonly manifest: ServiceManifest;
  readonly etag: string;
  readonly ttlSeconds: number;
  /** When the server last confirmed it (ms since the epoch). */
  readonly fetchedAt: number;
  /** Until when it is relied on without asking. */
  readonly freshUntil: number;
}

export interface ManifestReader {
  /**
   * The manifest: the cached one while fresh (`ttl_seconds` since the server
   * last confirmed it, and no change announced), else asked for again with
   * its etag (a cheap "not modified" when unchanged). `undefined` when the
   * server does not negotiate the extension.
   */
  get(): Promise<ServiceManifest | undefined>;
  /** Asks the server now, sending the cached etag. */
  refresh(): Promise<ServiceManifest | undefined>;
  /** The cache, without asking. */
  snapshot(): ManifestSnapshot | undefined;
  /** Calls `listener` with every manifest whose etag differs from the one held before; returns a function that removes it. */
  onChange(listener: (manifest: ServiceManifest, etag: string) => void): () => void;
  /** Names of the tools that need the user's approval before they run. */
  toolsRequiringConfirmation(): Promise<string[]>;
  /** Names of the tools that cost something (metered, or the cost needs approval). */
  costlyTools(): Promise<string[]>;
  /** Names of the tools whose latency class is `atLeast` (default `minutes`) or slower. */
  slowTools(atLeast?: LatencyClass): Promise<string[]>;
}

/**
 * A client-side cache of the server's manifest: fetched on first use,
 * revalidated by etag after `ttl_seconds`, refreshed when the server
 * announces a change (`notifications/<id>/changed`). Create one per client
 * (on SDK v1 a notification method has one handler).
 */
export function createManifestReader(client: ExtendedClient, options: ManifestReaderOptions = {}): ManifestReader {
  const refreshOnChange = options.refreshOnChange ?? true;
  if (typeof refreshOnChange !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', 'createManifestReader: refreshOnChange must be a boolean');
  const now = options.now ?? Date.now;
  const report =
    options.onError ??
    ((error: unknown) => {
      client.composed.logger.warn(`${MANIFEST_PACKAGE}: manifest refresh failed`, { error: String(error) });
    });
  const listeners = new Set<(manifest: ServiceManifest, etag: string) => void>();
  let cache: ManifestSnapshot | undefined;
  let stale = false;
  let inflight: Promise<ServiceManifest | undefined> | undefined;

  const emit = (manifest: ServiceManifest, etag: string): void => {
    for (const listener of [...listeners]) {
      try {
        listener(manifest, etag);
      } catch (error) {
        report(error);
      }
    }
  };

  const ask = async (): Promise<ServiceManifest | undefined> => {
    const held = cache;
    const answer = await fetchManifest(client, held?.etag);
    if (answer === undefined) return undefined;
    const at = now();
    const freshUntil = at + answer.ttl_seconds * 1000;
    stale = false;
    if (answer.not_modified) {
      if (held === undefined || held.etag !== answer.etag) {
        throw new ExtensionError(
          'permanent',
          'INVALID_MANIFEST',
          `${MANIFEST_ID}/get answered not_modified for an etag this client does not hold`,
          {
            userActionable: false,
            details: { pointer: '/not_modified' },
          },
        );
      }
      cache = { ...held, ttlSeconds: answer.ttl_seconds, fetchedAt: at, freshUntil };
      return held.manifest;
    }
    // parseGetResult guarantees a manifest when not_modified is false.
    const manifest = answer.manifest as ServiceManifest;
    cache = { manifest, etag: answer.etag, ttlSeconds: answer.ttl_seconds, fetchedAt: at, freshUntil };
    if (held?.etag !== answer.etag) emit(manifest, answer.etag);
    return manifest;
  };

  const refresh = (): Promise<ServiceManifest | undefined> => {
    inflight ??= ask().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  const get = (): Promise<ServiceManifest | undefined> => {
    if (cache !== undefined && !stale && now() < cache.freshUntil) return Promise.resolve(cache.manifest);
    return refresh();
  };

  client.onNotification(manifestChangedMethod(MANIFEST_ID), (params) => {
    const etag = typeof params.etag === 'string' ? params.etag : undefined;
    if (etag !== undefined && etag === cache?.etag) return;
    stale = true;
    if (!refreshOnChange) return;
    // A refresh already under way may have read the old manifest: ask again once it settles.
    void Promise.allSettled([inflight]).then(async () => {
      if (etag !== undefined && etag === cache?.etag) return;
      try {
        await refresh();
      } catch (error) {
        report(error);
      }
    });
  });

  return {
    get,
    refresh,
    snapshot: () => cache,
    onChange(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async toolsRequiringConfirmation() {
      const manifest = await get();
      return manifest === undefined ? [] : toolsRequiringConfirmation(manifest);
    },
    async costlyTools() {
      const manifest = await get();
      return manifest === undefined ? [] : costlyTools(manifest);
    },
    async slowTools(atLeast) {
      const manifest = await get();
      return manifest === undefined ? [] : slowTools(manifest, atLeast);
    },
  };
}

export { getManifestSettings } from './settings.js';
export { costlyTools, findTool, slowTools, toolsRequiringConfirmation } from './logic.js';
