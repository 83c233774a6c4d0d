import { randomUUID } from 'node:crypto';
import {
  ConfigurationError,
  ExtensionError,
  type CallContext,
  type JsonValue,
  type ServerExtension,
  type Store,
  type ToolCall,
  type ToolMiddleware,
  type ToolResult,
  type Unsubscribe,
} from '@ext/core';
import { setLocalCallInfo } from './locals.js';
import {
  budgetKey,
  budgetWindow,
  callFingerprint,
  completeRecord,
  decide,
  inFlightRecord,
  metaPointer,
  parseIdempotencyMeta,
  participates,
  readAuthorToolMeta,
  recordKey,
  recordToJson,
  releaseRecord,
  settledChannel,
  storableResult,
  withResultMeta,
  type Decision,
  type IdempotencyRequest,
  type InFlightRecord,
  type ParticipationRule,
} from './logic.js';
import {
  DEFAULT_TTL_SECONDS,
  IDEMPOTENCY_ID,
  IDEMPOTENCY_PACKAGE,
  IDEMPOTENCY_WIRE_VERSION,
  IdempotencyClientSettingsSchema,
} from './schema.js';

export type { ParticipationRule } from './logic.js';

export interface IdempotencyServerOptions {
  /** Which tools honour keys (see {@link ParticipationRule}). Default `'mutating'`. */
  readonly tools?: ParticipationRule | undefined;
  /** TTL when the client sends none. Default 86400 (24 h). */
  readonly defaultTtlSeconds?: number | undefined;
  /** Longer requested TTLs are lowered to this; also the window of the record budget. Default 604800 (7 days). */
  readonly maxTtlSeconds?: number | undefined;
  /** How long a duplicate waits for an in-flight execution before `IDEMPOTENCY_IN_PROGRESS`. Default 10000. */
  readonly inFlightWaitMs?: number | undefined;
  /** Re-read interval while waiting, in case a store's pub/sub message is missed. Default 100. */
  readonly pollIntervalMs?: number | undefined;
  /**
   * Lifetime of an in-flight claim; renewed every third of it while the
   * handler runs, so only a crashed server lets it lapse. Default 60000.
   */
  readonly leaseMs?: number | undefined;
  /** Most live records one principal may hold; beyond it new keys get `rate_limited`. Default 10000. */
  readonly maxKeysPerPrincipal?: number | undefined;
  /** `retry_after_seconds` of `IDEMPOTENCY_IN_PROGRESS`. Default 1. */
  readonly inProgressRetryAfterSeconds?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"idempotency"`. */
  readonly keyPrefix?: string | undefined;
  /** Wall clock in milliseconds for timestamps and the record budget (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

interface ResolvedOptions {
  readonly tools: ParticipationRule;
  readonly defaultTtlSeconds: number;
  readonly maxTtlSeconds: number;
  readonly inFlightWaitMs: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly maxKeysPerPrincipal: number;
  readonly inProgressRetryAfterSeconds: number;
  readonly keyPrefix: string;
  readonly now: () => number;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `idempotencyServer: ${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

function nonNegativeInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `idempotencyServer: ${name} must be a non-negative integer, got ${String(value)}`,
    );
  }
  return value;
}

function resolveOptions(options: IdempotencyServerOptions): ResolvedOptions {
  const tools = options.tools ?? 'mutating';
  const validRule =
    tools === 'mutating' ||
    tools === 'all' ||
    typeof tools === 'function' ||
    (Array.isArray(tools) && tools.every((name) => typeof name === 'string'));
  if (!validRule) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'idempotencyServer: tools must be "mutating", "all", an array of tool names or a function',
    );
  }
  const maxTtlSeconds = positiveInteger('maxTtlSeconds', options.maxTtlSeconds, 604_800);
  const defaultTtlSeconds = positiveInteger(
    'defaultTtlSeconds',
    options.defaultTtlSeconds,
    Math.min(DEFAULT_TTL_SECONDS, maxTtlSeconds),
  );
  if (defaultTtlSeconds > maxTtlSeconds) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `idempotencyServer: defaultTtlSeconds (${defaultTtlSeconds}) must not exceed maxTtlSeconds (${maxTtlSeconds})`,
    );
  }
  const leaseMs = positiveInteger('leaseMs', options.leaseMs, 60_000);
  if (leaseMs < 3) throw new ConfigurationError('INVALID_OPTION', 'idempotencyServer: leaseMs must be at least 3');
  const keyPrefix = options.keyPrefix ?? 'idempotency';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'idempotencyServer: keyPrefix must be a non-empty string');
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'idempotencyServer: now must be a function returning milliseconds');
  }
  return {
    tools,
    defaultTtlSeconds,
    maxTtlSeconds,
    inFlightWaitMs: nonNegativeInteger('inFlightWaitMs', options.inFlightWaitMs, 10_000),
    pollIntervalMs: positiveInteger('pollIntervalMs', options.pollIntervalMs, 100),
    leaseMs,
    maxKeysPerPrincipal: positiveInteger('maxKeysPerPrincipal', options.maxKeysPerPrincipal, 10_000),
    inProgressRetryAfterSeconds: nonNegativeInteger(
      'inProgressRetryAfterSeconds',
      options.inProgressRetryAfterSeconds,
      1,
    ),
    keyPrefix,
    now: options.now ?? Date.now,
  };
}

/** Wakes a waiting duplicate when the record it waits on settles, or after a poll interval. */
interface Waiter {
  wait(ms: number, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

async function openWaiter(store: Store, channel: string): Promise<Waiter> {
  let wake: (() => void) | undefined;
  let pending = false;
  const unsubscribe: Unsubscribe = await store.subscribe(channel, () => {
    pending = true;
    wake?.();
  });
  return {
    wait(ms, signal) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          wake = undefined;
          pending = false;
          resolve();
        };
        const onAbort = (): void => {
          clearTimeout(timer);
          wake = undefined;
          reject(signal.reason instanceof Error ? signal.reason : new Error('The request was cancelled'));
        };
        const timer = setTimeout(done, ms);
        wake = done;
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    close: unsubscribe,
  };
}

function invalidMeta(failure: { pointer: string; field: string; message: string }): ExtensionError {
  return new ExtensionError('invalid_input', 'INVALID_INPUT', failure.message, {
    userActionable: false,
    suggestion:
      failure.field === 'idempotency_ttl_seconds'
        ? 'Send idempotency_ttl_seconds as a positive integer, or leave it out for the server default.'
        : 'Send an idempotency key made of letters, digits and _-:. (1 to 128 characters).',
    details: { field: failure.field, pointer: failure.pointer },
  });
}

/**
 * The server half of idempotent tool calls. For tools that take part, a
 * call carrying `params._meta["io.github.mcp-ext/idempotency"]` executes at
 * most once per key (per principal and tool) within the key's TTL; repeats
 * replay the stored result.
 */
export function idempotencyServer(options: IdempotencyServerOptions = {}): ServerExtension {
  const config = resolveOptions(options);
  const timestamp = (): string => new Date(config.now()).toISOString();

  /** Counts a new record against the principal's budget; returns the undo, or throws `rate_limited`. */
  async function reserveBudget(store: Store, principal: string): Promise<() => Promise<void>> {
    const windowMs = config.maxTtlSeconds * 1000;
    const window = budgetWindow(config.now(), windowMs);
    const currentKey = budgetKey(config.keyPrefix, principal, window.current);
    // Counters outlive the records they count by one bucket, then vanish.
    // Independent keys: issued together, a networked store answers both in one round trip.
    const [count, previous] = await Promise.all([
      store.increment(currentKey, 1, { ttlMs: 2 * windowMs }),
      store.get(budgetKey(config.keyPrefix, principal, window.previous)),
    ]);
    const live = count + (typeof previous === 'number' ? previous : 0);
    const undo = async (): Promise<void> => {
      await store.increment(currentKey, -1, { ttlMs: 2 * windowMs });
    };
    if (live > config.maxKeysPerPrincipal) {
      await undo();
      throw new ExtensionError(
        'rate_limited',
        'IDEMPOTENCY_KEY_LIMIT',
        `This caller holds the maximum of ${config.maxKeysPerPrincipal} idempotency records`,
        {
          retryAfterSeconds: window.secondsToNextBucket,
          suggestion: 'Retry later, or call without a new idempotency key.',
          details: { max_records: config.maxKeysPerPrincipal },
        },
      );
    }
    return undo;
  }

  /** Frees a claimed key, unless another claim replaced it, so a retry with the key can run. */
  async function releaseClaim(
    store: Store,
    storeKey: string,
    claim: InFlightRecord,
    claimJson: JsonValue,
  ): Promise<void> {
    const released = releaseRecord(claim, claim.claim_id);
    if (released) await store.compareAndSet(storeKey, claimJson, recordToJson(released), { ttlMs: config.leaseMs });
  }

  /** Releases a claim that will not run (the record budget refused it), waking any duplicate waiting on it. */
  async function giveBack(store: Store, storeKey: string, claim: InFlightRecord, claimJson: JsonValue): Promise<void> {
    await releaseClaim(store, storeKey, claim, claimJson);
    await store.publish(settledChannel(storeKey), 'released');
  }

  async function execute(
    call: ToolCall,
    ctx: CallContext,
    next: (call?: ToolCall) => Promise<ToolResult>,
    id: string,
    request: IdempotencyRequest,
    storeKey: string,
    claim: InFlightRecord,
    undoBudget: () => Promise<void>,
  ): Promise<ToolResult> {
    const { store, logger } = ctx;
    const meta = { idempotency_key: request.key, was_replay: false, original_timestamp: claim.started_at };
    const claimJson = recordToJson(claim);
    let lost = false;
    const renew = async (): Promise<void> => {
      const kept = await store.compareAndSet(storeKey, claimJson, claimJson, { ttlMs: config.leaseMs });
      if (!kept && !lost) {
        lost = true;
        logger.warn('idempotency: in-flight claim was lost while the tool ran (lease expired)', { tool: call.name });
      }
    };
    const heartbeat = setInterval(
      () => {
        renew().catch((error: unknown) => {
          logger.warn('idempotency: renewing the in-flight claim failed', { tool: call.name, error: String(error) });
        });
      },
      Math.floor(config.leaseMs / 3),
    );
    heartbeat.unref();

    // Waiters also poll, so a lost announcement only delays them: log it instead of failing the call.
    const announce = async (state: 'released' | 'completed'): Promise<void> => {
      await store.publish(settledChannel(storeKey), state).catch((error: unknown) => {
        logger.warn('idempotency: announcing a settled key failed', { tool: call.name, error: String(error) });
      });
    };
    const release = async (): Promise<void> => {
      await releaseClaim(store, storeKey, claim, claimJson);
      await undoBudget();
      await announce('released');
    };

    setLocalCallInfo(ctx, { idempotency_key: request.key, original_timestamp: claim.started_at });
    let result: ToolResult;
    try {
      result = await next(call);
    } catch (error) {
      clearInterval(heartbeat);
      // A failed execution frees the key so a retry with it can run; the original error still propagates.
      await release().catch((releaseError: unknown) => {
        logger.warn('idempotency: releasing the key after a failure failed', {
          tool: call.name,
          error: String(releaseError),
        });
      });
      throw error;
    }
    clearInterval(heartbeat);

    const storable = result.isError === true ? undefined : storableResult(result, id);
    if (storable === undefined) {
      if (result.isError !== true)
        logger.warn('idempotency: the result is not JSON and was not stored', { tool: call.name });
      await release();
      return withResultMeta(result, id, meta);
    }
    const completed = completeRecord(claim, claim.claim_id, storable);
    const stored =
      completed !== undefined &&
      (await store.compareAndSet(storeKey, claimJson, recordToJson(completed), { ttlMs: request.ttlSeconds * 1000 }));
    if (!stored) {
      logger.warn('idempotency: the result could not be recorded because the claim was lost', { tool: call.name });
    }
    await announce('completed');
    return withResultMeta(result, id, meta);
  }

  const middleware: ToolMiddleware = async (call, ctx, next) => {
    const negotiated = ctx.negotiated(IDEMPOTENCY_PACKAGE);
    if (negotiated === undefined) return next();
    const id = negotiated.id;
    const raw = call.meta[id];
    if (raw === undefined || !participates(ctx.tool, config.tools, id)) return next();

    const parsed = parseIdempotencyMeta(raw, id, config);
    if (!parsed.ok) throw invalidMeta(parsed);
    const request = parsed.value;
    const { store } = ctx;
    const storeKey = recordKey(config.keyPrefix, ctx.principal, call.name, request.key);
    const fingerprint = callFingerprint(call.name, call.arguments);
    const deadline = performance.now() + config.inFlightWaitMs;
    const inProgress = (): ExtensionError =>
      new ExtensionError(
        'transient',
        'IDEMPOTENCY_IN_PROGRESS',
        'A call with this idempotency key is still executing',
        {
          retryAfterSeconds: config.inProgressRetryAfterSeconds,
          suggestion: 'Retry with the same idempotency key to receive the result once it completes.',
          details: { idempotency_key: request.key },
        },
      );

    let waiter: Waiter | undefined;
    // A fresh key (the common case) is claimed outright, without reading it first; only a key found taken is read and decided on.
    let optimistic = true;
    try {
      for (;;) {
        const decision: Decision = optimistic
          ? { kind: 'claim', expected: undefined }
          : decide(await store.get(storeKey), fingerprint);
        const unread = optimistic;
        optimistic = false;
        switch (decision.kind) {
          case 'replay': {
            const { record } = decision;
            return withResultMeta(record.result, id, {
              idempotency_key: request.key,
              was_replay: true,
              original_timestamp: record.started_at,
            });
          }
          case 'conflict':
            throw new ExtensionError(
              'invalid_input',
              'IDEMPOTENCY_CONFLICT',
              `Idempotency key "${request.key}" was already used for a call with different arguments`,
              {
                userActionable: false,
                suggestion: 'Use a new idempotency key for a call with different arguments.',
                details: {
                  field: 'idempotency_key',
                  pointer: metaPointer(id, 'idempotency_key'),
                  idempotency_key: request.key,
                },
              },
            );
          case 'unreadable':
            throw new ExtensionError(
              'permanent',
              'IDEMPOTENCY_STATE_UNREADABLE',
              'The stored state for this idempotency key cannot be read',
              {
                suggestion: 'Use a new idempotency key.',
              },
            );
          case 'wait':
            // Subscribe first, then re-read: a completion between the two reads cannot be missed.
            if (waiter === undefined) {
              waiter = await openWaiter(store, settledChannel(storeKey));
              continue;
            }
            if (performance.now() >= deadline) throw inProgress();
            await waiter.wait(Math.max(1, Math.min(config.pollIntervalMs, deadline - performance.now())), ctx.signal);
            continue;
          case 'claim': {
            const claim = inFlightRecord(fingerprint, randomUUID(), timestamp());
            const claimJson: JsonValue = recordToJson(claim);
            const won =
              decision.expected === undefined
                ? await store.setIfAbsent(storeKey, claimJson, { ttlMs: config.leaseMs })
                : await store.compareAndSet(storeKey, recordToJson(decision.expected), claimJson, {
                    ttlMs: config.leaseMs,
                  });
            if (!won) {
              // The key is taken (the first, unread try), or another caller changed the record first: read and decide again.
              if (!unread && performance.now() >= deadline) throw inProgress();
              continue;
            }
            // Counted once the key is ours, so a known key never touches the budget and still replays at the limit (IDEM-13).
            let undoBudget: () => Promise<void>;
            try {
              undoBudget = await reserveBudget(store, ctx.principal);
            } catch (error) {
              await giveBack(store, storeKey, claim, claimJson).catch((releaseError: unknown) => {
                ctx.logger.warn('idempotency: releasing a key refused by the record budget failed', {
                  tool: call.name,
                  error: String(releaseError),
                });
              });
              throw error;
            }
            if (waiter !== undefined) {
              await waiter.close();
              waiter = undefined;
            }
            return await execute(call, ctx, next, id, request, storeKey, claim, undoBudget);
          }
        }
      }
    } finally {
      await waiter?.close();
    }
  };

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
    middleware,
    toolMeta(tool) {
      // Validates the author's entry at registration, so a typo fails at startup.
      readAuthorToolMeta(tool, IDEMPOTENCY_ID);
      return { idempotent_capable: participates(tool, config.tools, IDEMPOTENCY_ID) };
    },
  };
}
