/**
 * The server half of `@ext/idempotency` (the `./server` entry): the
 * extension descriptor, assembled from the options and the middleware, and
 * what a handler may ask about the key it runs under.
 */
import { type ServerExtension } from '@ext/core';
import { participates, readAuthorToolMeta } from './logic.js';
import { idempotencyMiddleware, replayProbe } from './middleware.js';
import { resolveOptions, type IdempotencyServerOptions } from './options.js';
import {
  IDEMPOTENCY_ID,
  IDEMPOTENCY_PACKAGE,
  IDEMPOTENCY_WIRE_VERSION,
  IdempotencyClientSettingsSchema,
} from './schema.js';
import { offerReplay } from './replay-probe.js';

export type { ParticipationRule } from './logic.js';
export type { IdempotencyServerOptions } from './options.js';
export { getIdempotencyCallInfo, type IdempotencyCallInfo } from './locals.js';

/**
 * The server half of idempotent tool calls. For tools that take part, a
 * call carrying `params._meta["io.github.mcp-ext/idempotency"]` executes at
 * most once per key (per principal and tool) within the key's TTL; repeats
 * replay the stored result.
 */
export function idempotencyServer(options: IdempotencyServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  return {
    side: 'server',
    keepsCallerState: true,
    name: IDEMPOTENCY_PACKAGE,
    ids: [IDEMPOTENCY_ID],
    settings: {
      version: IDEMPOTENCY_WIRE_VERSION,
      default_ttl_seconds: config.defaultTtlSeconds,
      max_ttl_seconds: config.maxTtlSeconds,
    },
    peerSettings: IdempotencyClientSettingsSchema,
    stage: 'idempotency',
    middleware: idempotencyMiddleware(config),
    beginCall(_call, ctx) {
      offerReplay(ctx, replayProbe(config, ctx));
    },
    toolMeta(tool) {
      // Validates the author's entry at registration, so a typo fails at startup.
      readAuthorToolMeta(tool, IDEMPOTENCY_ID);
      return { idempotent_capable: participates(tool, config.tools, IDEMPOTENCY_ID) };
    },
  };
}
