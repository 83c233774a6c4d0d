/**
 * The SEP-3172 `recovery` annotation of a proxied tool as the gateway offers
 * it (GW-53): it names the compensating tool by the name clients call it by,
 * and is offered only when it says what the gateway's own saga runs. Pure.
 */
import { readRecovery, recoveryAnnotation, RECOVERY_ANNOTATION } from '@ext/transactions/server';
import type { GatewayTool } from './gateway-tool.js';

/** The offered name of each offered tool, by upstream and its name there. */
export type OfferedNames = ReadonlyMap<string, string>;

function key(upstream: string, upstreamName: string): string {
  return `${upstream}\u0000${upstreamName}`;
}

export function offeredNames(tools: readonly GatewayTool[]): OfferedNames {
  return new Map(tools.map((tool) => [key(tool.upstream, tool.upstreamName), tool.name]));
}

/**
 * `annotations` with the upstream's `recovery` rewritten to offered names,
 * or without it when the policy's `compensate` replaces it, when the tool it
 * names is not offered (hidden), or when it is not the draft's shape.
 */
export function withOfferedRecovery(
  annotations: Readonly<Record<string, unknown>>,
  tool: GatewayTool,
  names: OfferedNames,
): Record<string, unknown> {
  if (!(RECOVERY_ANNOTATION in annotations)) return { ...annotations };
  const { [RECOVERY_ANNOTATION]: upstreamRecovery, ...rest } = annotations;
  if (tool.policy.compensate !== undefined) return rest;
  const reading = readRecovery({ [RECOVERY_ANNOTATION]: upstreamRecovery });
  if (reading.kind !== 'declared') return rest;
  const operation = reading.recovery.compensatingOperation;
  const offered = names.get(key(tool.upstream, operation.operationId));
  if (offered === undefined) return rest;
  return { ...rest, [RECOVERY_ANNOTATION]: recoveryAnnotation(offered, operation.parameters) };
}
