/**
 * The gateway's extension stack: every extension of the family composed
 * through `@ext/core`, with the options the tools' policies call for (scopes,
 * intent rules, compensations); everything per tool that an extension reads
 * from `Tool._meta` is in `tool-meta.ts` instead.
 */
import { composeServer, type ComposedServer, type Logger, type ServerExtension } from '@ext/core';
import {
  approvalTasks,
  confirmationServer,
  toolApprovalServer,
  type ApproverRule,
  type ConfirmationServerOptions,
} from '@ext/confirmation/server';
import type { ApprovalDesk } from '@ext/confirmation/approvals';
import { contentNegotiationServer } from '@ext/content-negotiation/server';
import { costServer } from '@ext/cost/server';
import { errorsServer } from '@ext/errors/server';
import { idempotencyServer } from '@ext/idempotency/server';
import { intentServer } from '@ext/intent/server';
import { manifestServer } from '@ext/manifest/server';
import { multimodalServer } from '@ext/multimodal/server';
import { permissionsServer } from '@ext/permissions/server';
import { provenanceServer } from '@ext/provenance/server';
import { tasksServer } from '@ext/tasks/server';
import { readRecovery, recoveryCompensation, transactionsServer, type Compensation } from '@ext/transactions/server';
import type { GatewayConfig } from './config/schema.js';
import type { CallUpstream, GatewayTool } from './gateway-tool.js';
import { rememberCallError } from './metrics/outcome.js';
import { gatewayPolicyServer, type PolicyLookup } from './policy/stage.js';
import { compensationArguments } from './policy/template.js';
import type { Redactor } from './redact/redactor.js';

/** Scope declarations for `@ext/permissions`: each scope a policy names, with the tools that need it. */
export function scopeDeclarations(tools: readonly GatewayTool[], descriptions: Readonly<Record<string, string>> = {}) {
  const byScope = new Map<string, string[]>();
  for (const tool of tools) {
    for (const scope of tool.policy.scopes) byScope.set(scope, [...(byScope.get(scope) ?? []), tool.name]);
  }
  return [...byScope].map(([name, names]) => ({
    name,
    description: descriptions[name] ?? `call ${names.join(', ')}`,
    tools: names,
  }));
}

/** Intent rules: each tool's `intent` entries recommend that tool. */
export function intentRules(tools: readonly GatewayTool[]) {
  return tools.flatMap((tool) =>
    tool.policy.intent.map((rule) => ({
      tool: tool.name,
      keywords: rule.keywords,
      pattern: rule.pattern,
      reason: rule.reason,
      from: rule.from,
    })),
  );
}

/**
 * Saga compensations: a completed step is undone by calling the named tool on the same upstream, as the
 * policy's `compensate` says or, without one, as the upstream's own `annotations.recovery` does (GW-52).
 */
export function compensations(
  tools: readonly GatewayTool[],
  callUpstream: CallUpstream,
  redactor?: Redactor,
): Record<string, Compensation> {
  const out: Record<string, Compensation> = {};
  for (const tool of tools) {
    const undo = tool.policy.compensate;
    if (undo === undefined) {
      const declared = upstreamRecovery(tool, callUpstream, redactor);
      if (declared !== undefined) out[tool.name] = declared;
      continue;
    }
    out[tool.name] = {
      tool: undo.tool,
      description: `Undo with ${undo.tool}`,
      parameters: (args, result) => compensationArguments(undo.arguments, { args, result }),
      compensate: async (_args, _result, ctx) => {
        const answer = await callUpstream(tool.upstream, undo.tool, { ...ctx.parameters }, { signal: ctx.signal });
        if (answer.isError !== true) return;
        // The upstream's words go to the saga's record, the log and the trace: redacted as its errors are (GW-24).
        const said = JSON.stringify(answer.content);
        throw new Error(`${undo.tool} failed: ${redactor === undefined ? said : redactor.text(said).value}`);
      },
    };
  }
  return out;
}

/** The compensation the upstream declares in the tool's annotations (SEP-3172), run on that upstream. */
function upstreamRecovery(
  tool: GatewayTool,
  callUpstream: CallUpstream,
  redactor: Redactor | undefined,
): Compensation | undefined {
  const reading = readRecovery(tool.annotations);
  if (reading.kind !== 'declared') return undefined;
  return recoveryCompensation(
    tool.name,
    reading.recovery,
    (name, args, ctx) => callUpstream(tool.upstream, name, args, { signal: ctx.signal }),
    {
      // The upstream's words go to the saga's record, the log and the trace: redacted as its errors are (GW-24).
      failure: (answer) => {
        const said = JSON.stringify(answer.content ?? []);
        return redactor === undefined ? said : redactor.text(said).value;
      },
    },
  );
}

export interface GatewayCompositionOptions {
  readonly config: GatewayConfig;
  readonly tools: readonly GatewayTool[];
  readonly callUpstream: CallUpstream;
  readonly scopeDescriptions?: Readonly<Record<string, string>> | undefined;
  readonly logger?: Logger | undefined;
  /**
   * Hides secrets in the arguments a person approving a call is shown (GW-25) and in what a failed
   * compensation reports (GW-24). Default: both as the caller and the upstream said them.
   */
  readonly redactor?: Redactor | undefined;
  /** The gateway's own rules per tool (access, argument conditions, withheld tools), read at each call. */
  readonly policy?: PolicyLookup | undefined;
  /** Calls held for an operator (`approvals`): the confirmation options that hold them. */
  readonly approvals?: HeldCalls | undefined;
  /** The deployment's own server halves (`GatewayOptions.extensions`). */
  readonly extensions?: readonly ServerExtension[] | undefined;
}

/** The confirmation options of calls held for an operator. */
export interface HeldCalls {
  readonly approver: ApproverRule;
  readonly approvals: ApprovalDesk;
  readonly holdSeconds: number | undefined;
  readonly policyVersion: string;
  readonly recheck: NonNullable<ConfirmationServerOptions['recheck']>;
}

/**
 * The task half for held calls (SEP-2848): a call waiting for an operator
 * becomes a task for a client that declared Tasks; a task whose instance
 * died is taken up again (it finds its approval request and waits on).
 */
function approvalTasksServer(held: HeldCalls) {
  const ttlMs = held.approvals.ttlMs + 3_600_000;
  // A lease of 10 s: a task whose instance was killed is taken up by another within about that.
  return tasksServer({ tools: approvalTasks(held.approver), onInterrupt: () => 'resume', ttlMs, leaseMs: 10_000 });
}

/** The composed stack for the gateway's current tools. */
export function composeGateway(options: GatewayCompositionOptions): ComposedServer {
  const { config, tools, callUpstream, logger, redactor, policy, approvals } = options;
  const scopes = scopeDeclarations(tools, options.scopeDescriptions);
  return composeServer(
    [
      // The structured error of a failed call, which a client without the errors extension is not sent, for the metrics;
      // the gateway's own refusals also carry the draft SEP-3313 ToolFailure (GW-54).
      errorsServer({ onError: rememberCallError, toolFailure: true }),
      contentNegotiationServer({
        defaultFormat: config.defaults?.format,
        defaultVerbosity: config.defaults?.verbosity,
      }),
      policy !== undefined && gatewayPolicyServer(policy),
      scopes.length > 0 && permissionsServer({ scopes }),
      costServer(),
      intentServer({ rules: intentRules(tools) }),
      multimodalServer(),
      approvals !== undefined && approvalTasksServer(approvals),
      confirmationServer({
        ...approvals,
        ...(redactor === undefined ? {} : { displayArguments: (args) => redactor.value(args).value }),
      }),
      approvals !== undefined && toolApprovalServer(),
      idempotencyServer(),
      transactionsServer({ compensations: compensations(tools, callUpstream, redactor) }),
      provenanceServer(),
      manifestServer({ description: `MCP gateway in front of ${Object.keys(config.upstreams).join(', ')}` }),
      ...(options.extensions ?? []),
    ],
    { logger },
  );
}
