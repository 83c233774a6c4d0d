import { randomBytes, randomUUID } from 'node:crypto';
import { Compile } from 'typebox/compile';
import {
  approvalRequirements,
  canonicalHash,
  elicitationAnswer,
  inputRequiredResult,
  ConfigurationError,
  ExtensionError,
  grantApproval,
  type ApprovalRequirement,
  type CallContext,
  type ElicitationResponse,
  type JsonValue,
  type MethodHandler,
  type RequestContext,
  type ServerExtension,
  type Store,
  type ToolCall,
  type ToolInfo,
  type ToolMiddleware,
  type ToolResult,
} from '@ext/core';
import {
  answersQuestion,
  auditStream,
  checkGrant,
  checkToken,
  confirmationMessage,
  grantKey,
  grantUsesKey,
  parseGrantRecord,
  parseQuestionRecord,
  parseTokenRecord,
  questionKey,
  readToolGate,
  recordJson,
  refusalError,
  secretDigest,
  tokenKey,
  toolMetaOf,
  withResultMeta,
  type GrantRecord,
  type QuestionRecord,
  type TokenRecord,
  type ToolGate,
} from './logic.js';
import { readRequestMeta } from './request-meta.js';
import {
  ApproveParamsSchema,
  CONFIRMATION_ID,
  CONFIRMATION_PACKAGE,
  CONFIRMATION_WIRE_VERSION,
  ConfirmationClientSettingsSchema,
  GrantParamsSchema,
  type ApproveResult,
  type ConfirmationRequiredMeta,
  type ConfirmationServerSettings,
  type ConfirmedMeta,
  type GrantResult,
  type RiskLevel,
} from './schema.js';

export interface ConfirmationGrantOptions {
  /** Most calls one grant may cover. Default 50. */
  readonly maxCalls?: number | undefined;
  /** Longest lifetime of a grant, in seconds. Default 600. */
  readonly maxDurationSeconds?: number | undefined;
}

export interface ConfirmationServerOptions {
  /** Lifetime of a confirmation token, in seconds. Default 300 (5 minutes). */
  readonly tokenTtlSeconds?: number | undefined;
  /**
   * Which path wins when a client both negotiated the extension and can
   * elicit: `'token'` (default: the client half shows its own dialog) or
   * `'elicitation'` (the server asks in-band).
   */
  readonly prefer?: 'token' | 'elicitation' | undefined;
  /** Most tokens one `approve` request may carry. Default 100. */
  readonly maxBatchSize?: number | undefined;
  /** Offer `<id>/grant` (N calls of one tool within T seconds). Default `false`: not offered. */
  readonly grants?: ConfirmationGrantOptions | false | undefined;
  /** How long used and expired tokens are kept so a replay gets its own error. Default 3600 seconds. */
  readonly retentionSeconds?: number | undefined;
  /** Most entries kept in the audit stream. Default 10000. */
  readonly auditMaxLength?: number | undefined;
  /** Namespace of every store key this extension writes. Default `"confirmation"`. */
  readonly keyPrefix?: string | undefined;
  /** Wall clock in milliseconds (tests). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

interface Resolved {
  readonly tokenTtlMs: number;
  readonly prefer: 'token' | 'elicitation';
  readonly maxBatchSize: number;
  readonly grants: { readonly maxCalls: number; readonly maxDurationSeconds: number } | undefined;
  readonly retentionMs: number;
  readonly auditMaxLength: number;
  readonly keyPrefix: string;
  readonly now: () => number;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `confirmationServer: ${name} must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

function resolve(options: ConfirmationServerOptions): Resolved {
  // Typed as string: JavaScript callers can pass anything.
  const prefer: string = options.prefer ?? 'token';
  if (prefer !== 'token' && prefer !== 'elicitation') {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: prefer must be "token" or "elicitation"');
  }
  const keyPrefix = options.keyPrefix ?? 'confirmation';
  if (typeof keyPrefix !== 'string' || keyPrefix.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: keyPrefix must be a non-empty string');
  }
  if (options.now !== undefined && typeof options.now !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', 'confirmationServer: now must be a function returning milliseconds');
  }
  const grants =
    options.grants === undefined || options.grants === false
      ? undefined
      : {
          maxCalls: positiveInteger('grants.maxCalls', options.grants.maxCalls, 50),
          maxDurationSeconds: positiveInteger('grants.maxDurationSeconds', options.grants.maxDurationSeconds, 600),
        };
  return {
    tokenTtlMs: positiveInteger('tokenTtlSeconds', options.tokenTtlSeconds, 300) * 1000,
    prefer,
    maxBatchSize: positiveInteger('maxBatchSize', options.maxBatchSize, 100),
    grants,
    retentionMs: positiveInteger('retentionSeconds', options.retentionSeconds, 3600) * 1000,
    auditMaxLength: positiveInteger('auditMaxLength', options.auditMaxLength, 10_000),
    keyPrefix,
    now: options.now ?? Date.now,
  };
}

/** Longer echoed states are not ours (ours are 43 characters): refused before any hashing. */
const MAX_REQUEST_STATE_LENGTH = 256;

/** 256 random bits, base64url: unguessable (CONF-8). */
function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

// Compiled on first use: keeps import free of work.
let approveValidator: ReturnType<typeof Compile<typeof ApproveParamsSchema>> | undefined;
let grantValidator: ReturnType<typeof Compile<typeof GrantParamsSchema>> | undefined;

function pointerOf(path: string, id: string): string {
  const escaped = id.replaceAll('~', '~0').replaceAll('/', '~1');
  return `/_meta/${escaped}${path}`;
}

function firstIssue(issues: readonly { instancePath: string; message: string }[]): { path: string; message: string } {
  const first = issues[0];
  return first === undefined
    ? { path: '', message: 'is invalid' }
    : { path: first.instancePath, message: first.message };
}

/** One audited event (CONF-13); entries are JSON in the store's `<prefix>:audit` stream. */
export interface ConfirmationAuditEntry {
  readonly at: string;
  readonly event:
    | 'token_issued'
    | 'token_redeemed'
    | 'token_refused'
    | 'batch_approved'
    | 'grant_issued'
    | 'grant_used'
    | 'grant_refused'
    | 'elicitation_accepted'
    | 'elicitation_declined'
    | 'elicitation_unasked'
    | 'refused_no_channel';
  readonly principal: string;
  readonly tool?: string | undefined;
  readonly risk_level?: RiskLevel | undefined;
  readonly code?: string | undefined;
  readonly batch_id?: string | undefined;
  readonly count?: number | undefined;
  /** A digest of the token or grant id, never the secret itself. */
  readonly ref?: string | undefined;
}

/** Reads the audit stream (oldest first) from a store the server used. */
export async function readConfirmationAudit(
  store: Store,
  options: { readonly after?: string; readonly limit?: number; readonly keyPrefix?: string } = {},
): Promise<{ id: string; entry: ConfirmationAuditEntry }[]> {
  const entries = await store.read(auditStream(options.keyPrefix ?? 'confirmation'), {
    after: options.after,
    limit: options.limit,
  });
  return entries.map((item) => ({ id: item.id, entry: item.value as unknown as ConfirmationAuditEntry }));
}

/** The request context's elicitation asks for one boolean; the client half recognises it by this shape. */
export function confirmationElicitation(
  tool: string,
  message: string,
  riskLevel: RiskLevel,
): { message: string; requestedSchema: Record<string, unknown> } {
  return {
    message: `${message}\n\nRisk level: ${riskLevel}.`,
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: {
          type: 'boolean',
          title: 'Approve',
          description: `Approve this ${riskLevel} operation: ${tool}`,
          default: false,
        },
      },
      required: ['confirm'],
    },
  };
}

/** The key of the confirmation question in a 2026-07-28 input_required result. */
export const CONFIRM_INPUT_KEY = 'confirm';

/** Risk levels, least to most severe. */
const SEVERITY: readonly RiskLevel[] = ['safe', 'reversible', 'destructive'];

/**
 * The gate a call must pass: the tool's own declaration, or, for a tool
 * that declares none, the approvals other extensions asked for this call
 * (cost's `requires_approval`, CONF-19), with their reasons as the message
 * and the most severe risk level they named.
 */
export function effectiveGate(
  declared: ToolGate | undefined,
  asked: readonly ApprovalRequirement[],
): ToolGate | undefined {
  if (declared?.requiresConfirmation === true) return declared;
  if (asked.length === 0) return undefined;
  const riskLevel = asked
    .map((requirement) => requirement.riskLevel ?? 'reversible')
    .reduce<RiskLevel>((worst, level) => (SEVERITY.indexOf(level) > SEVERITY.indexOf(worst) ? level : worst), 'safe');
  return { requiresConfirmation: true, riskLevel, message: asked.map((requirement) => requirement.reason).join(' ') };
}

/**
 * The server half of human-in-the-loop confirmation. Tools declare their
 * gate in `Tool._meta["io.github.mcp-ext/confirmation"]`; a gated call runs
 * only after the user approved it: in-band (elicitation), with a
 * single-use token (clients that negotiated the extension), or not at all.
 */
export function confirmationServer(options: ConfirmationServerOptions = {}): ServerExtension {
  const config = resolve(options);
  const gates = new WeakMap<ToolInfo, ToolGate | null>();
  const gatedTools = new Set<string>();
  const iso = (ms: number): string => new Date(ms).toISOString();

  function gateOf(tool: ToolInfo): ToolGate | undefined {
    const cached = gates.get(tool);
    if (cached !== undefined) return cached ?? undefined;
    const gate = readToolGate(tool, CONFIRMATION_ID);
    gates.set(tool, gate ?? null);
    return gate;
  }

  async function audit(store: Store, entry: Omit<ConfirmationAuditEntry, 'at'>): Promise<void> {
    const value = { at: iso(config.now()), ...entry } as unknown as JsonValue;
    await store.append(auditStream(config.keyPrefix), JSON.parse(JSON.stringify(value)) as JsonValue, {
      maxLength: config.auditMaxLength,
    });
  }

  async function issueToken(
    call: ToolCall,
    ctx: CallContext,
    id: string,
    gate: ToolGate,
    message: string,
  ): Promise<ToolResult> {
    const token = newSecret();
    const now = config.now();
    const record: TokenRecord = {
      v: 1,
      tool: call.name,
      args_hash: canonicalHash(call.arguments),
      principal: ctx.principal,
      message,
      risk_level: gate.riskLevel,
      issued_at: now,
      expires_at: now + config.tokenTtlMs,
      state: 'pending',
    };
    await ctx.store.set(tokenKey(config.keyPrefix, token), recordJson(record), {
      ttlMs: config.tokenTtlMs + config.retentionMs,
    });
    await audit(ctx.store, {
      event: 'token_issued',
      principal: ctx.principal,
      tool: call.name,
      risk_level: gate.riskLevel,
      ref: secretDigest(token),
    });
    const meta: ConfirmationRequiredMeta = {
      status: 'confirmation_required',
      confirmation_token: token,
      tool: call.name,
      message,
      risk_level: gate.riskLevel,
      expires_at: iso(record.expires_at),
    };
    return {
      content: [
        {
          type: 'text',
          text:
            `Confirmation required (${gate.riskLevel}): ${message}\n` +
            `Nothing was done. Ask the user; if they approve, call "${call.name}" again with the same arguments ` +
            `and params._meta["${id}"].confirmation_token. The token expires at ${meta.expires_at}.`,
        },
      ],
      _meta: { [id]: meta },
    };
  }

  async function redeemToken(call: ToolCall, ctx: CallContext, token: string): Promise<void> {
    const key = tokenKey(config.keyPrefix, token);
    const stored = await ctx.store.get(key);
    const record = parseTokenRecord(stored);
    const refusal = checkToken(record, {
      principal: ctx.principal,
      now: config.now(),
      call: { tool: call.name, argsHash: canonicalHash(call.arguments) },
    });
    const refuse = async (code: Parameters<typeof refusalError>[0]): Promise<never> => {
      await audit(ctx.store, {
        event: 'token_refused',
        principal: ctx.principal,
        tool: call.name,
        code,
        ref: secretDigest(token),
      });
      throw refusalError(code, { tool: call.name });
    };
    if (refusal !== undefined || record === undefined || stored === undefined)
      return refuse(refusal ?? 'CONFIRMATION_TOKEN_INVALID');
    const used: TokenRecord = { ...record, state: 'used', used_at: config.now() };
    // Exactly one of several concurrent retries wins the swap (CONF-10); the others see a replay.
    const won = await ctx.store.compareAndSet(key, stored, recordJson(used), { ttlMs: config.retentionMs });
    if (!won) return refuse('CONFIRMATION_TOKEN_REPLAYED');
    await audit(ctx.store, {
      event: 'token_redeemed',
      principal: ctx.principal,
      tool: call.name,
      risk_level: record.risk_level,
      batch_id: record.batch_id,
      ref: secretDigest(token),
    });
  }

  async function drawGrant(call: ToolCall, ctx: CallContext, grantId: string): Promise<number> {
    const record = parseGrantRecord(await ctx.store.get(grantKey(config.keyPrefix, grantId)));
    const refusal = checkGrant(record, { principal: ctx.principal, tool: call.name, now: config.now() });
    const refuse = async (code: Parameters<typeof refusalError>[0]): Promise<never> => {
      await audit(ctx.store, {
        event: 'grant_refused',
        principal: ctx.principal,
        tool: call.name,
        code,
        ref: secretDigest(grantId),
      });
      throw refusalError(code, { tool: call.name });
    };
    if (refusal !== undefined || record === undefined) return refuse(refusal ?? 'CONFIRMATION_GRANT_INVALID');
    const uses = await ctx.store.increment(grantUsesKey(config.keyPrefix, grantId), 1, {
      ttlMs: record.expires_at - record.issued_at + config.retentionMs,
    });
    if (uses > record.max_calls) return refuse('CONFIRMATION_GRANT_EXHAUSTED');
    await audit(ctx.store, {
      event: 'grant_used',
      principal: ctx.principal,
      tool: call.name,
      count: uses,
      ref: secretDigest(grantId),
    });
    return record.max_calls - uses;
  }

  /**
   * Asks through `input_required` (2026-07-28), with a fresh unguessable
   * `requestState` that names this question in the store, so that only an
   * answer to it, for this caller, tool and arguments, counts (CONF-6a).
   */
  async function askInBand(call: ToolCall, ctx: CallContext, gate: ToolGate, message: string): Promise<ToolResult> {
    const requestState = newSecret();
    const record: QuestionRecord = {
      v: 1,
      tool: call.name,
      args_hash: canonicalHash(call.arguments),
      principal: ctx.principal,
      expires_at: config.now() + config.tokenTtlMs,
    };
    await ctx.store.set(questionKey(config.keyPrefix, requestState), recordJson(record), { ttlMs: config.tokenTtlMs });
    return inputRequiredResult(
      { [CONFIRM_INPUT_KEY]: confirmationElicitation(call.name, message, gate.riskLevel) },
      { requestState },
    );
  }

  /** Whether the retry echoes the state of an open question asked for this very call; takes the question, so it is answered once. */
  async function takeQuestion(call: ToolCall, ctx: CallContext, requestState: string | undefined): Promise<boolean> {
    if (requestState === undefined || requestState.length > MAX_REQUEST_STATE_LENGTH) return false;
    const key = questionKey(config.keyPrefix, requestState);
    const record = parseQuestionRecord(await ctx.store.get(key));
    const matches = answersQuestion(record, {
      principal: ctx.principal,
      tool: call.name,
      argsHash: canonicalHash(call.arguments),
      now: config.now(),
    });
    // Of two retries echoing the same state, only the one whose delete removes the question goes on.
    return matches && (await ctx.store.delete(key));
  }

  /** Records a person's in-band answer; anything but an explicit "yes" refuses the call (CONF-6). */
  async function settleAnswer(
    call: ToolCall,
    ctx: CallContext,
    gate: ToolGate,
    answer: ElicitationResponse,
  ): Promise<void> {
    const accepted = answer.action === 'accept' && answer.content?.confirm === true;
    await audit(ctx.store, {
      event: accepted ? 'elicitation_accepted' : 'elicitation_declined',
      principal: ctx.principal,
      tool: call.name,
      risk_level: gate.riskLevel,
    });
    if (!accepted) {
      throw new ExtensionError(
        'permanent',
        'CONFIRMATION_DECLINED',
        `The user did not approve "${call.name}"; nothing was done`,
        {
          userActionable: true,
          suggestion: 'Do not retry unless the user asks for it again.',
          details: { tool: call.name, action: answer.action },
        },
      );
    }
  }

  const middleware: ToolMiddleware = async (call, ctx, inner) => {
    const gate = effectiveGate(gateOf(ctx.tool), approvalRequirements(ctx));
    if (gate === undefined) return inner();
    // Every path that reaches the tool went through a person's explicit yes (CONF-19).
    const next = (): Promise<ToolResult> => {
      grantApproval(ctx);
      return inner();
    };
    const message = confirmationMessage(ctx.tool, gate, call.arguments);
    const negotiated = ctx.negotiated(CONFIRMATION_PACKAGE);
    if (negotiated !== undefined) {
      const id = negotiated.id;
      const raw = call.meta[id];
      // Only an absent entry asks for a token; any entry sent must be a valid one (CONF-9a).
      if (raw !== undefined) {
        const reading = readRequestMeta(raw);
        if (reading.kind === 'invalid') {
          throw new ExtensionError(
            'invalid_input',
            'INVALID_INPUT',
            `params._meta["${id}"]${reading.path} ${reading.message}; nothing was executed`,
            {
              userActionable: false,
              suggestion:
                'Send the confirmation_token (or grant_id) exactly as the server issued it, or leave the entry out to get a new token.',
              details: { pointer: pointerOf(reading.path, id) },
            },
          );
        }
        if (reading.kind === 'token') {
          await redeemToken(call, ctx, reading.token);
          return withResultMeta(await next(), id, { status: 'confirmed', via: 'token' } satisfies ConfirmedMeta);
        }
        const remaining = await drawGrant(call, ctx, reading.grantId);
        const meta: ConfirmedMeta = { status: 'confirmed', via: 'grant', grant_calls_remaining: remaining };
        return withResultMeta(await next(), id, meta);
      }
      if (!(config.prefer === 'elicitation' && (ctx.elicit !== undefined || ctx.inputRound !== undefined)))
        return issueToken(call, ctx, id, gate, message);
    }
    if (ctx.elicit !== undefined) {
      await settleAnswer(
        call,
        ctx,
        gate,
        await ctx.elicit(confirmationElicitation(call.name, message, gate.riskLevel)),
      );
      const result = await next();
      return negotiated === undefined
        ? result
        : withResultMeta(result, negotiated.id, { status: 'confirmed', via: 'elicitation' } satisfies ConfirmedMeta);
    }
    if (ctx.inputRound !== undefined) {
      // 2026-07-28: ask by answering input_required; the client retries the same call with the person's answer (CONF-6).
      const answer = elicitationAnswer(ctx.inputRound, CONFIRM_INPUT_KEY);
      if (answer === undefined) return askInBand(call, ctx, gate, message);
      if (!(await takeQuestion(call, ctx, ctx.inputRound.requestState))) {
        // An answer to no question of ours (unasked, replayed, expired, or for other arguments) approves nothing: ask.
        await audit(ctx.store, {
          event: 'elicitation_unasked',
          principal: ctx.principal,
          tool: call.name,
          risk_level: gate.riskLevel,
        });
        return askInBand(call, ctx, gate, message);
      }
      await settleAnswer(call, ctx, gate, answer);
      const result = await next();
      return negotiated === undefined
        ? result
        : withResultMeta(result, negotiated.id, { status: 'confirmed', via: 'elicitation' } satisfies ConfirmedMeta);
    }
    // Fail closed (CONF-7): nobody can be asked, so the call never runs.
    await audit(ctx.store, {
      event: 'refused_no_channel',
      principal: ctx.principal,
      tool: call.name,
      risk_level: gate.riskLevel,
    });
    throw new ExtensionError(
      'permanent',
      'CONFIRMATION_REQUIRED',
      `"${call.name}" is a ${gate.riskLevel} operation that needs a person's approval, and this client can neither ask its user (elicitation) nor speak the ${CONFIRMATION_ID} extension; the call was not executed`,
      {
        userActionable: true,
        suggestion: `Use a client that supports elicitation or the ${CONFIRMATION_ID} extension to perform this operation.`,
        details: { tool: call.name, risk_level: gate.riskLevel, message },
      },
    );
  };

  const approve: MethodHandler = async (params, ctx: RequestContext) => {
    approveValidator ??= Compile(ApproveParamsSchema);
    if (!approveValidator.Check(params)) {
      const issue = firstIssue(approveValidator.Errors(params));
      throw new ExtensionError('invalid_input', 'INVALID_INPUT', `params${issue.path} ${issue.message}`, {
        details: { pointer: issue.path },
      });
    }
    const tokens = params.confirmation_tokens;
    if (tokens.length > config.maxBatchSize) {
      throw new ExtensionError(
        'invalid_input',
        'CONFIRMATION_BATCH_TOO_LARGE',
        `At most ${config.maxBatchSize} tokens can be approved at once`,
        {
          suggestion: 'Split the approval into smaller batches.',
          details: { pointer: '/confirmation_tokens', max_batch_size: config.maxBatchSize },
        },
      );
    }
    const batchId = randomUUID();
    const result: ApproveResult = { batch_id: batchId, approved: [], rejected: [] };
    for (const token of new Set(tokens)) {
      const key = tokenKey(config.keyPrefix, token);
      const stored = await ctx.store.get(key);
      const record = parseTokenRecord(stored);
      let refusal = checkToken(record, { principal: ctx.principal, now: config.now() });
      if (refusal === undefined && record !== undefined && stored !== undefined) {
        const approvedRecord: TokenRecord = { ...record, state: 'approved', batch_id: batchId };
        const ttlMs = Math.max(1, record.expires_at - config.now()) + config.retentionMs;
        if (await ctx.store.compareAndSet(key, stored, recordJson(approvedRecord), { ttlMs })) {
          result.approved.push(token);
          continue;
        }
        refusal = 'CONFIRMATION_TOKEN_REPLAYED';
      }
      const error = refusalError(refusal ?? 'CONFIRMATION_TOKEN_INVALID');
      result.rejected.push({ confirmation_token: token, code: error.code, message: error.message });
    }
    await audit(ctx.store, {
      event: 'batch_approved',
      principal: ctx.principal,
      batch_id: batchId,
      count: result.approved.length,
    });
    return result;
  };

  const grant: MethodHandler = async (params, ctx: RequestContext) => {
    const limits = config.grants;
    if (limits === undefined) {
      throw new ExtensionError(
        'permanent',
        'CONFIRMATION_GRANTS_DISABLED',
        'This server does not offer approval grants',
        {
          suggestion: 'Confirm each call on its own, or approve several tokens at once.',
        },
      );
    }
    grantValidator ??= Compile(GrantParamsSchema);
    if (!grantValidator.Check(params)) {
      const issue = firstIssue(grantValidator.Errors(params));
      throw new ExtensionError('invalid_input', 'INVALID_INPUT', `params${issue.path} ${issue.message}`, {
        details: { pointer: issue.path },
      });
    }
    if (params.max_calls > limits.maxCalls || params.duration_seconds > limits.maxDurationSeconds) {
      throw new ExtensionError(
        'invalid_input',
        'CONFIRMATION_GRANT_LIMIT',
        `A grant covers at most ${limits.maxCalls} calls within ${limits.maxDurationSeconds} seconds`,
        {
          suggestion: 'Ask for fewer calls or a shorter time.',
          details: { max_calls: limits.maxCalls, max_duration_seconds: limits.maxDurationSeconds },
        },
      );
    }
    if (!gatedTools.has(params.tool)) {
      throw new ExtensionError(
        'invalid_input',
        'CONFIRMATION_GRANT_INVALID',
        `"${params.tool}" is not a tool that requires confirmation`,
        {
          details: { pointer: '/tool' },
        },
      );
    }
    const grantId = newSecret();
    const now = config.now();
    const record: GrantRecord = {
      v: 1,
      tool: params.tool,
      principal: ctx.principal,
      max_calls: params.max_calls,
      issued_at: now,
      expires_at: now + params.duration_seconds * 1000,
    };
    await ctx.store.set(grantKey(config.keyPrefix, grantId), recordJson(record), {
      ttlMs: params.duration_seconds * 1000 + config.retentionMs,
    });
    await audit(ctx.store, {
      event: 'grant_issued',
      principal: ctx.principal,
      tool: params.tool,
      count: params.max_calls,
      ref: secretDigest(grantId),
    });
    const out: GrantResult = {
      grant_id: grantId,
      tool: params.tool,
      max_calls: params.max_calls,
      expires_at: iso(record.expires_at),
    };
    return out;
  };

  const settings: ConfirmationServerSettings = {
    version: CONFIRMATION_WIRE_VERSION,
    token_ttl_seconds: config.tokenTtlMs / 1000,
    max_batch_size: config.maxBatchSize,
  };
  if (config.grants !== undefined) {
    settings.grants = { max_calls: config.grants.maxCalls, max_duration_seconds: config.grants.maxDurationSeconds };
  }
  // `grant` is always served so a client asking a server without grants gets a clear error, not "method not found".
  const methods: Record<string, MethodHandler> = { approve, grant };

  return {
    side: 'server',
    keepsCallerState: true,
    name: CONFIRMATION_PACKAGE,
    ids: [CONFIRMATION_ID],
    settings,
    peerSettings: ConfirmationClientSettingsSchema,
    stage: 'confirmation',
    middleware,
    methods,
    toolMeta(tool) {
      const gate = gateOf(tool);
      if (gate === undefined) return undefined;
      if (gate.requiresConfirmation) gatedTools.add(tool.name);
      return toolMetaOf(gate);
    },
    toolAnnotations(tool) {
      const gate = gateOf(tool);
      // MCP's advisory hint follows the enforced risk level (CONF-3).
      return gate === undefined ? undefined : { destructiveHint: gate.riskLevel === 'destructive' };
    },
  };
}
