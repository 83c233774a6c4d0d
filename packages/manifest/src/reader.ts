/** `createManifestReader`: the client's cache of the server's manifest, revalidated by etag and refreshed on change. */
import { ConfigurationError, ExtensionError, type ExtendedClient } from '@ext/core';
import { fetchManifest } from './fetch.js';
import { costlyTools, slowTools, toolsRequiringConfirmation } from './queries.js';
import {
  MANIFEST_ID,
  MANIFEST_PACKAGE,
  manifestChangedMethod,
  type LatencyClass,
  type ManifestGetResult,
  type ServiceManifest,
} from './schema.js';

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
 * The cache after an `<id>/get` answer at `at` to a client holding `held`.
 * "Not modified" for an etag the client does not hold is `INVALID_MANIFEST`.
 */
function nextSnapshot(held: ManifestSnapshot | undefined, answer: ManifestGetResult, at: number): ManifestSnapshot {
  const freshUntil = at + answer.ttl_seconds * 1000;
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
    return { ...held, ttlSeconds: answer.ttl_seconds, fetchedAt: at, freshUntil };
  }
  // parseGetResult guarantees a manifest when not_modified is false.
  const manifest = answer.manifest as ServiceManifest;
  return { manifest, etag: answer.etag, ttlSeconds: answer.ttl_seconds, fetchedAt: at, freshUntil };
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
    stale = false;
    const next = nextSnapshot(held, answer, at);
    cache = next;
    if (!answer.not_modified && held?.etag !== answer.etag) emit(next.manifest, answer.etag);
    return next.manifest;
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
