/**
 * The lock file an operator commits (`mcp-ext-gateway lock` writes it): the
 * reviewed definition of every upstream tool, and its digest.
 *
 *     { "version": 1,
 *       "tools": { "<upstream>/<tool>": { "digest": "sha256:…", "definition": { … } } } }
 *
 * The definition is kept beside the digest so a change can be described and
 * a reviewer reads what was approved in the diff. Written deterministically
 * (members sorted, two-space indent, no dates), so locking an unchanged
 * set of tools again changes nothing. `parseLockFile` and `lockFileText`
 * are pure; `readLockFile` and `writeLockFile` do the I/O.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { canonicalJson } from '@ext/core/kit';
import Type from 'typebox';
import { configError, type ConfigFault } from '../config/errors.js';
import { explain } from '../config/explain.js';
import { readDocument } from '../config/document.js';
import { UPSTREAM_NAME_PATTERN } from '../config/patterns.js';
import { definitionDigest, pinnedDefinition, ToolDefinitionSchema, type ToolDefinition } from './definition.js';

/** The only lock file version this gateway reads and writes. */
export const LOCK_FILE_VERSION = 1;

const LockEntrySchema = Type.Object(
  {
    digest: Type.String({ pattern: '^sha256:[0-9a-f]{64}$' }),
    definition: ToolDefinitionSchema,
  },
  { additionalProperties: false },
);

export const LockFileSchema = Type.Object(
  {
    version: Type.Literal(LOCK_FILE_VERSION),
    tools: Type.Record(Type.String(), LockEntrySchema),
  },
  { additionalProperties: false, title: 'LockFile' },
);

/** One locked tool. */
export interface LockEntry {
  readonly digest: string;
  readonly definition: ToolDefinition;
}

/** A lock file, read and checked. */
export interface LockFile {
  readonly version: typeof LOCK_FILE_VERSION;
  /** By `<upstream>/<tool>` (see `lockKey`). */
  readonly tools: Readonly<Record<string, LockEntry>>;
}

const upstreamName = new RegExp(UPSTREAM_NAME_PATTERN, 'u');

/** The lock file's key for `tool` at `upstream`: `<upstream>/<tool>` (upstream names hold no `/`; tool names may). */
export function lockKey(upstream: string, tool: string): string {
  return `${upstream}/${tool}`;
}

/** The upstream and tool a lock file key names, split at its first `/`; `undefined` when it is not one. */
export function parseLockKey(key: string): { readonly upstream: string; readonly tool: string } | undefined {
  const slash = key.indexOf('/');
  const upstream = key.slice(0, slash);
  const tool = key.slice(slash + 1);
  return slash < 0 || !upstreamName.test(upstream) || tool === '' ? undefined : { upstream, tool };
}

/** The first entry that breaks what the schema cannot say: its key, its definition's name, its digest. */
function entryFault(key: string, entry: LockEntry): ConfigFault | undefined {
  const place = ['tools', key];
  const named = parseLockKey(key);
  if (named === undefined) return { path: place, problem: 'is not a key of the form `<upstream>/<tool>`' };
  if (entry.definition.name !== named.tool) {
    return { path: [...place, 'definition', 'name'], problem: `must be "${named.tool}", the tool its key names` };
  }
  const digest = definitionDigest(entry.definition);
  if (entry.digest === digest) return undefined;
  return {
    path: [...place, 'digest'],
    problem: `does not match the definition (whose digest is ${digest}): write the file with \`mcp-ext-gateway lock\`, not by hand`,
  };
}

function lockFault(value: unknown): ConfigFault | undefined {
  const fault = explain(LockFileSchema, value);
  if (fault !== undefined) return fault;
  const { tools } = value as LockFile;
  for (const [key, entry] of Object.entries(tools)) {
    const entryProblem = entryFault(key, entry);
    if (entryProblem !== undefined) return entryProblem;
  }
  return undefined;
}

/**
 * `text` as a lock file. Throws a `GatewayConfigError` naming the first
 * field at fault (`tools["fs/read_file"].digest`) and its line.
 */
export function parseLockFile(text: string, source?: string): LockFile {
  const place = { source };
  const document = readDocument(text, 'json', place);
  const fault = lockFault(document.value);
  if (fault !== undefined) throw configError(fault, { ...place, line: document.lineOf(fault.path) });
  return document.value as LockFile;
}

/** The lock file of `definitions` (by `lockKey`): sorted, indented JSON ending in a newline. */
export function lockFileText(definitions: Readonly<Record<string, ToolDefinition>>): string {
  const tools = Object.fromEntries(
    Object.entries(definitions).map(([key, definition]) => {
      const pinned = pinnedDefinition(definition);
      return [key, { digest: definitionDigest(pinned), definition: pinned }];
    }),
  );
  // Canonical JSON sorts every member; parsed back it keeps that order (integer-like keys aside, which JavaScript orders first, still the same every time).
  const sorted: unknown = JSON.parse(canonicalJson({ version: LOCK_FILE_VERSION, tools }));
  return `${JSON.stringify(sorted, null, 2)}\n`;
}

/** Reads and checks the lock file at `path`; a file that cannot be read or is wrong is a `GatewayConfigError`. */
export async function readLockFile(path: string): Promise<LockFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw configError({ path: [], problem: `cannot be read (${reason})` }, { source: path });
  }
  return parseLockFile(text, path);
}

/**
 * Writes the lock file of `definitions` (by `lockKey`) to `path`
 * atomically: to a file beside it, then renamed over it, so a reader (or a
 * crash) never sees half a file.
 */
export async function writeLockFile(
  path: string,
  definitions: Readonly<Record<string, ToolDefinition>>,
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, lockFileText(definitions), { flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
