/**
 * Pins read from the operator's lock file: the reviewed set. The gateway
 * reads it once, when it starts; only the CLI writes it (`lock`,
 * `tools accept`), each time from the file as it is then, so an edit made
 * meanwhile is kept.
 */
import { definitionDigest, pinnedDefinition, type ToolDefinition } from './definition.js';
import { lockKey, readLockFile, writeLockFile, type LockEntry } from './lock-file.js';
import type { Pin, PinSource } from './pin-source.js';

function entryOf(tools: Readonly<Record<string, LockEntry>>, key: string): Pin | undefined {
  if (!Object.hasOwn(tools, key)) return undefined;
  const entry = tools[key];
  return entry === undefined ? undefined : { digest: entry.digest, definition: entry.definition };
}

function definitionsOf(tools: Readonly<Record<string, LockEntry>>): Record<string, ToolDefinition> {
  return Object.fromEntries(Object.entries(tools).map(([key, entry]) => [key, entry.definition]));
}

/** A lock file as a `PinSource`. Who accepted a pin is not recorded in it: the repository's history says. */
export class LockFilePins implements PinSource {
  readonly reviewed = true;
  readonly location: string;
  #tools: Readonly<Record<string, LockEntry>>;

  private constructor(path: string, tools: Readonly<Record<string, LockEntry>>) {
    this.location = path;
    this.#tools = tools;
  }

  /** Reads the lock file at `path` (absolute); throws a `GatewayConfigError` when it is missing or wrong. */
  static async open(path: string): Promise<LockFilePins> {
    return new LockFilePins(path, (await readLockFile(path)).tools);
  }

  pinned(upstream: string, tool: string): Promise<Pin | undefined> {
    return Promise.resolve(entryOf(this.#tools, lockKey(upstream, tool)));
  }

  pinIfAbsent(upstream: string, tool: string, definition: ToolDefinition): Promise<Pin> {
    return this.#write(upstream, tool, definition, false);
  }

  accept(upstream: string, tool: string, definition: ToolDefinition): Promise<Pin> {
    return this.#write(upstream, tool, definition, true);
  }

  /** Writes `definition` for the tool into the file as it is now (unless it has a pin and `overwrite` is false); returns the pin that holds. */
  async #write(upstream: string, tool: string, definition: ToolDefinition, overwrite: boolean): Promise<Pin> {
    const key = lockKey(upstream, tool);
    const { tools } = await readLockFile(this.location);
    const holding = entryOf(tools, key);
    if (holding !== undefined && !overwrite) {
      this.#tools = tools;
      return holding;
    }
    const pinned = pinnedDefinition(definition);
    const pin = { digest: definitionDigest(pinned), definition: pinned };
    const next = { ...tools, [key]: pin };
    await writeLockFile(this.location, definitionsOf(next));
    this.#tools = next;
    return pin;
  }
}
