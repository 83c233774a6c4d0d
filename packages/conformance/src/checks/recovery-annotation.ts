/**
 * SEP-3172 ("Recovery Metadata for MCP ToolAnnotations", PR #3172, head
 * c66570f6): the `recovery` annotation a server lists for a tool, checked
 * against the draft's shape and against the server's own tool list. Pure.
 */
import { isRecord } from '@ext/core/kit';

const BINDABLE = /^\$(response|request)\.body(#\/.*)?$/;

/**
 * What is wrong with `tool`'s `annotations.recovery`, given the names of
 * every tool the server lists; `[]` when it has none or it is sound. A
 * strategy other than `compensation` belongs to a later draft and is not judged.
 */
export function recoveryViolations(
  tool: { readonly name: string; readonly annotations?: unknown },
  listed: ReadonlySet<string>,
): string[] {
  if (!isRecord(tool.annotations) || tool.annotations.recovery === undefined) return [];
  const recovery = tool.annotations.recovery;
  const at = `${tool.name}: annotations.recovery`;
  if (!isRecord(recovery)) return [`${at} is not an object`];
  if (typeof recovery.strategy === 'string' && recovery.strategy !== 'compensation') return [];
  if (recovery.strategy !== 'compensation') return [`${at}.strategy is not "compensation"`];
  const operation = recovery.compensatingOperation;
  if (!isRecord(operation)) return [`${at}.compensatingOperation is not an object`];
  const problems: string[] = [];
  if (typeof operation.operationId !== 'string' || operation.operationId === '') {
    problems.push(`${at}.compensatingOperation.operationId is not a tool name`);
  } else if (!listed.has(operation.operationId)) {
    problems.push(`${at} names ${operation.operationId}, which the server does not list`);
  }
  if (!isRecord(operation.parameters)) {
    problems.push(`${at}.compensatingOperation.parameters is not an object`);
    return problems;
  }
  for (const [name, value] of Object.entries(operation.parameters)) {
    if (typeof value !== 'string') problems.push(`${at} parameter ${name} is not a string`);
    else if (value.startsWith('$') && !BINDABLE.test(value)) {
      problems.push(`${at} parameter ${name} reads ${value}, which no MCP tool call has`);
    }
  }
  return problems;
}
