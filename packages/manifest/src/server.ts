import {
  ConfigurationError,
  ExtensionError,
  type ConnectionChannel,
  type Logger,
  type RequestContext,
  type ServingServer,
  type ToolInfo,
} from '@ext/core';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  buildServiceManifest,
  DEFAULT_TTL_SECONDS,
  getAnswer,
  httpUrl,
  manifestEtag,
  parseGetParams,
  parseManifestToolMeta,
  type ManifestConfig,
} from './logic.js';
import {
  AuthCapabilitiesSchema,
  MANIFEST_ID,
  MANIFEST_PACKAGE,
  MANIFEST_WIRE_VERSION,
  manifestChangedMethod,
  ManifestClientSettingsSchema,
  RateLimitsSchema,
  ServerRecommendationSchema,
  type AuthCapabilities,
  type ManifestChangedParams,
  type ManifestServerSettings,
  type RateLimits,
  type ServerRecommendation,
} from './schema.js';
import type { CurrentManifest, ManifestServerExtension } from './serving.js';

export interface ManifestServerOptions {
  /** How long a client may rely on a manifest before asking again (`ttl_seconds`). Default 300. */
  readonly ttlSeconds?: number | undefined;
  /** `server.description`. Default: the `description` given to the SDK server, if any. */
  readonly description?: string | undefined;
  /** `server.homepage` (an http(s) URL). Default: the SDK server's `websiteUrl`, if any. */
  readonly homepage?: string | undefined;
  /** `server.mcp_spec_version`. Default: the protocol revision the request was made in, else `2025-11-25`. */
  readonly mcpSpecVersion?: string | undefined;
  /**
   * Authentication methods (and extra scopes, session TTL) in the seed's
   * `AuthCapabilities` shape. Scopes and session TTL of `@ext/permissions`,
   * when composed, are added without being listed here.
   */
  readonly auth?: AuthCapabilities | undefined;
  /** Server-wide rate limits, in the seed's `RateLimits` shape. */
  readonly rateLimits?: RateLimits | undefined;
  /** Other servers to recommend, in the seed's `ServerRecommendation` shape. */
  readonly recommendations?: readonly ServerRecommendation[] | undefined;
  /** Which registered tools the manifest lists. Default: all of them. */
  readonly include?: ((tool: ToolInfo) => boolean) | undefined;
}

function fail(message: string): never {
  throw new ConfigurationError('INVALID_OPTION', `manifestServer: ${message}`);
}

function checkShape<T>(name: string, schema: TSchema, value: T | undefined): T | undefined {
  if (value === undefined) return undefined;
  const validator = Compile(schema);
  if (!validator.Check(value)) {
    const first = validator.Errors(value)[0];
    fail(`${name}${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`);
  }
  return value;
}

function resolveOptions(options: ManifestServerOptions): { ttlSeconds: number; config: ManifestConfig } {
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1)
    fail(`ttlSeconds must be a positive integer, got ${String(ttlSeconds)}`);
  if (options.description !== undefined && typeof options.description !== 'string')
    fail('description must be a string');
  if (options.homepage !== undefined && httpUrl(options.homepage) === undefined)
    fail(`homepage must be an http(s) URL, got ${JSON.stringify(options.homepage)}`);
  if (
    options.mcpSpecVersion !== undefined &&
    (typeof options.mcpSpecVersion !== 'string' || options.mcpSpecVersion === '')
  ) {
    fail('mcpSpecVersion must be a non-empty string');
  }
  if (options.include !== undefined && typeof options.include !== 'function')
    fail('include must be a function (tool) => boolean');
  if (options.recommendations !== undefined && !Array.isArray(options.recommendations))
    fail('recommendations must be an array');
  (options.recommendations ?? []).forEach((recommendation, index) => {
    checkShape(`recommendations/${String(index)}`, ServerRecommendationSchema, recommendation);
  });
  return {
    ttlSeconds,
    config: {
      description: options.description,
      homepage: options.homepage,
      mcpSpecVersion: options.mcpSpecVersion,
      auth: checkShape('auth', AuthCapabilitiesSchema, options.auth),
      rateLimits: checkShape('rateLimits', RateLimitsSchema, options.rateLimits),
      recommendations: options.recommendations,
      include: options.include,
    },
  };
}

/** What the server remembers of a connection that fetched the manifest: the last etag it was told. */
interface Watch {
  lastEtag: string;
}

/**
 * The server half of the service manifest. Serves `<id>/get`, which returns
 * the manifest assembled from every registered tool and every composed
 * extension's tool metadata, with an etag, a "not modified" answer for a
 * current etag, and `ttl_seconds`. A client that fetched it on a connection
 * that outlives the request, and negotiated the extension, is sent
 * `notifications/<id>/changed` when a tool registered later changes it.
 */
export function manifestServer(options: ManifestServerOptions = {}): ManifestServerExtension {
  const { ttlSeconds, config } = resolveOptions(options);
  const warned = new Set<string>();
  const watches = new WeakMap<ConnectionChannel, Watch>();

  const currentManifest = (
    server: ServingServer,
    protocolVersion?: string,
    sharedCallers = false,
    logger: Logger = server.composed.logger,
  ): CurrentManifest => {
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

  /** Follows tool registrations for a connection that fetched the manifest (MAN-13). */
  const watch = (ctx: RequestContext, server: ServingServer, etag: string): void => {
    const connection = ctx.connection;
    const negotiated = ctx.negotiated(MANIFEST_PACKAGE);
    if (connection === undefined || negotiated === undefined || connection.signal.aborted) return;
    const known = watches.get(connection);
    if (known !== undefined) {
      known.lastEtag = etag;
      return;
    }
    const state: Watch = { lastEtag: etag };
    watches.set(connection, state);
    let pending = false;
    const recheck = (): void => {
      pending = false;
      if (connection.signal.aborted) return;
      const next = currentManifest(server, ctx.protocolVersion, ctx.identity?.source === 'anonymous', ctx.logger).etag;
      if (next === state.lastEtag) return;
      state.lastEtag = next;
      const params: ManifestChangedParams = { etag: next };
      connection.notify(manifestChangedMethod(negotiated.id), params).catch((error: unknown) => {
        ctx.logger.warn(`${MANIFEST_PACKAGE}: could not send the change notification`, { error: String(error) });
      });
    };
    const stop = server.composed.onToolRecorded(() => {
      // Registrations come in bursts (a setup registering ten tools): one recheck after the burst.
      if (pending) return;
      pending = true;
      queueMicrotask(recheck);
    });
    connection.signal.addEventListener('abort', stop, { once: true });
  };

  const settings: ManifestServerSettings = { version: MANIFEST_WIRE_VERSION, ttl_seconds: ttlSeconds };
  return {
    side: 'server',
    name: MANIFEST_PACKAGE,
    ids: [MANIFEST_ID],
    settings,
    peerSettings: ManifestClientSettingsSchema,
    currentManifest: (server, protocolVersion, sharedCallers) =>
      currentManifest(server, protocolVersion, sharedCallers),
    toolMeta(tool) {
      // Validates the author's entry at registration, so a mistake fails at startup.
      const parsed = parseManifestToolMeta(tool._meta?.[MANIFEST_ID]);
      if (!parsed.ok) {
        throw new ConfigurationError(
          'INVALID_TOOL_META',
          `tool "${tool.name}": _meta["${MANIFEST_ID}"]${parsed.pointer} ${parsed.message}`,
        );
      }
      return parsed.value;
    },
    methods: {
      get(params, ctx) {
        const parsed = parseGetParams(params);
        if (!parsed.ok) {
          throw new ExtensionError(
            'invalid_input',
            'INVALID_INPUT',
            `${MANIFEST_ID}/get: params${parsed.pointer} ${parsed.message}`,
            {
              userActionable: false,
              suggestion: 'Send no params, or { "etag": <the etag of the manifest you hold> }.',
              details: { field: parsed.pointer.slice(1) || 'params', pointer: parsed.pointer },
            },
          );
        }
        const server = ctx.server;
        if (server === undefined) {
          throw new ExtensionError(
            'permanent',
            'MANIFEST_UNAVAILABLE',
            'This server cannot describe itself: its adapter does not expose the server to extensions.',
            {
              userActionable: false,
            },
          );
        }
        const current = currentManifest(server, ctx.protocolVersion, ctx.identity?.source === 'anonymous', ctx.logger);
        watch(ctx, server, current.etag);
        return getAnswer(current.manifest, current.etag, ttlSeconds, parsed.value.etag);
      },
    },
  };
}

export { getServiceManifest } from './serving.js';
export type { CurrentManifest, ManifestServerExtension } from './serving.js';
export { createServerCardHandler, SERVER_CARD_MEDIA_TYPE, WELL_KNOWN_SERVER_CARD_PATH } from './card.js';
export type { ServerCardHandler, ServerCardOptions, ServerCardResponse } from './card.js';
export { getManifestSettings } from './settings.js';
