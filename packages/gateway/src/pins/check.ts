/**
 * Judging an upstream tool against its pin: is it new, the pinned one, or
 * changed, and so is it served, and is its definition (re)pinned. Pure; the
 * table is in `judgeTool`'s comment.
 */
import { definitionDigest, describeChange, type ToolDefinition } from './definition.js';
import type { OnToolChange } from './pins-config.js';
import type { Pin } from './pin-source.js';

export type PinStatus = 'new' | 'pinned' | 'changed';

/** The change entry of a tool a lock file does not list. */
export const NOT_IN_LOCK_FILE = 'not in the lock file';

export interface Judgement {
  readonly status: PinStatus;
  /** With `changed`: what changed since the pin (see `describeChange`), or `['not in the lock file']`. */
  readonly changes?: readonly string[];
  /** Whether the tool is listed and callable. */
  readonly serve: boolean;
  /** Whether the definition is to be pinned: `pinIfAbsent` when `new`, `accept` (overwrite) when `changed`. */
  readonly repin: boolean;
}

/** What `onToolChange` makes of a changed tool; a lock file is never written while serving. */
function changed(changes: readonly string[], onToolChange: OnToolChange, hasLockFile: boolean): Judgement {
  return {
    status: 'changed',
    changes,
    serve: onToolChange !== 'block',
    repin: onToolChange === 'accept' && !hasLockFile,
  };
}

/**
 * How `definition` stands against `pin`:
 *
 * | pin                     | store                  | lock file                          |
 * | ----------------------- | ---------------------- | ---------------------------------- |
 * | none                    | `new`: serve, pin it   | `changed` (unreviewed), as below   |
 * | same digest             | `pinned`: serve        | `pinned`: serve                    |
 * | other digest, `block`   | `changed`: withhold    | `changed`: withhold                |
 * | other digest, `warn`    | `changed`: serve (log) | `changed`: serve (log)             |
 * | other digest, `accept`  | `changed`: serve, repin| `changed`: serve (log), no repin   |
 *
 * With a lock file, `accept` cannot repin: the lock file is the operator's
 * reviewed set, changed only by `mcp-ext-gateway lock` or `tools accept`.
 */
export function judgeTool(
  pin: Pin | undefined,
  definition: ToolDefinition,
  onToolChange: OnToolChange,
  hasLockFile: boolean,
): Judgement {
  if (pin === undefined) {
    return hasLockFile
      ? changed([NOT_IN_LOCK_FILE], onToolChange, hasLockFile)
      : { status: 'new', serve: true, repin: true };
  }
  if (pin.digest === definitionDigest(definition)) return { status: 'pinned', serve: true, repin: false };
  return changed(describeChange(pin.definition, definition), onToolChange, hasLockFile);
}
