/** The structured error a call to a withheld tool fails with: which tool, and what changed since it was approved. */
import { ExtensionError } from '@ext/core';

/** The code of a call to a tool withheld because its definition changed. */
export const TOOL_DEFINITION_CHANGED = 'TOOL_DEFINITION_CHANGED';

/**
 * The error for a call to `tool` (its exposed name), withheld because its
 * definition changed (`changes`, from the judgement). Permanent: calling
 * again does not help until an operator accepts the change.
 */
export function toolChangedError(tool: string, changes: readonly string[]): ExtensionError {
  const what = changes.length === 0 ? '' : ` (${changes.join(', ')})`;
  return new ExtensionError(
    'permanent',
    TOOL_DEFINITION_CHANGED,
    `Tool "${tool}" is withheld: its definition changed since it was approved${what}`,
    {
      details: { tool, changes: [...changes] },
      suggestion: `An operator reviews the change and accepts it: mcp-ext-gateway tools accept ${tool}`,
    },
  );
}
