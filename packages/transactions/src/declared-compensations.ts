/**
 * Compensations that tools declare in `annotations.recovery` (SEP-3172),
 * learned as tools are registered or called, and run by calling the named
 * tool of the same server through its whole pipeline, as the step's caller.
 */
import { ANONYMOUS_PRINCIPAL, ExtensionError, extensionId, type ServerAttachment, type ToolInfo } from '@ext/core';
import type { CompensationContext, CompensationDefinition, Compensations } from './compensation.js';
import { recoveryCompensation, type CompensatingAnswer } from './recovery-compensation.js';
import { readRecovery, type RecoveryReading } from './recovery-annotation.js';

// The compensation's key travels as an idempotency key, so a re-run after a crash is dropped (TXN-14).
const IDEMPOTENCY_ID = extensionId('idempotency');

type RunTool = NonNullable<ServerAttachment['runTool']>;

/** The annotation-declared compensations of one engine. */
export class DeclaredCompensations {
  readonly #readings = new WeakMap<ToolInfo, RecoveryReading>();
  readonly #byTool = new Map<string, CompensationDefinition>();
  #runTool: RunTool | undefined;
  #merged: { readonly explicit: Compensations; readonly table: Compensations } | undefined;

  useRunTool(runTool: ServerAttachment['runTool']): void {
    this.#runTool = runTool;
    this.#merged = undefined;
  }

  /** Reads `tool`'s annotation once per registration; a tool registered anew without one declares nothing. */
  learn(tool: ToolInfo): RecoveryReading {
    const known = this.#readings.get(tool);
    if (known !== undefined) return known;
    const reading = readRecovery(tool.annotations);
    this.#readings.set(tool, reading);
    const before = this.#byTool.get(tool.name);
    if (reading.kind === 'declared') {
      this.#byTool.set(
        tool.name,
        recoveryCompensation(tool.name, reading.recovery, (name, args, ctx) => this.#call(name, args, ctx)),
      );
    } else {
      this.#byTool.delete(tool.name);
    }
    if (before !== this.#byTool.get(tool.name)) this.#merged = undefined;
    return reading;
  }

  /** `explicit` over the declared ones; the declared ones only where the server can call its own tools. */
  compensations(explicit: Compensations): Compensations {
    if (this.#merged?.explicit === explicit) return this.#merged.table;
    const declared = this.#runTool === undefined ? {} : Object.fromEntries(this.#byTool);
    const table: Compensations = { ...declared, ...explicit };
    this.#merged = { explicit, table };
    return table;
  }

  #call(tool: string, args: Record<string, unknown>, ctx: CompensationContext): Promise<CompensatingAnswer> {
    const runTool = this.#runTool;
    if (runTool === undefined) {
      return Promise.reject(
        new ExtensionError('permanent', 'COMPENSATION_NOT_REGISTERED', `This server cannot call ${tool} itself`),
      );
    }
    return runTool({
      name: tool,
      arguments: args,
      // The record keeps the principal, not how it was established; every per-caller stage keys by the principal.
      identity: {
        principal: ctx.principal,
        source: ctx.principal === ANONYMOUS_PRINCIPAL ? 'anonymous' : 'custom',
      },
      meta: { [IDEMPOTENCY_ID]: { idempotency_key: ctx.idempotencyKey } },
    });
  }
}
