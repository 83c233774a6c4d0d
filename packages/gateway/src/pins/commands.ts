/**
 * The CLI's pin commands, apart from argument parsing and the process:
 * `lock` writes the lock file of every upstream tool, `tools accept`
 * accepts one tool's current definition. Both connect to the upstreams the
 * config names, as the gateway does, and close them before returning.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { ExtensionError, type Logger } from '@ext/core';
import { GatewayConfigError } from '../config/errors.js';
import type { LoadedConfig } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { openStore } from '../store.js';
import { UpstreamPool, type ExposedTool } from '../upstream/index.js';
import { definitionDigest, describeChange, toolDefinition, type ToolDefinition } from './definition.js';
import { LockFilePins } from './lock-file-pins.js';
import { lockKey, parseLockFile, writeLockFile, type LockEntry } from './lock-file.js';
import type { Pin, PinSource } from './pin-source.js';
import { PIN_UNREADABLE, PinStore } from './pin-store.js';
import { DEFAULT_LOCK_FILE, lockFilePath, type PinsConfig } from './pins-config.js';

/** The gateway's name and version as a client of its upstreams, as `createGateway` presents itself. */
const DEFAULT_NAME = 'mcp-ext-gateway';
const VERSION = '0.1.0';

export interface CommandIo {
  /** Prints a line of the command's report (stdout). */
  readonly print: (line: string) => void;
  /** Where the upstreams' outages and stderr go (stderr). */
  readonly logger: Logger;
}

/** The config's `pins` section. */
export function pinsOf(config: GatewayConfig): PinsConfig | undefined {
  // Read defensively until the config schema declares `pins` (its type is `PinsConfigSchema`).
  return (config as { readonly pins?: PinsConfig }).pins;
}

/** Connects to every upstream of `config`, hands their tools to `use`, and closes the connections. */
async function withUpstreamTools<T>(
  config: GatewayConfig,
  logger: Logger,
  use: (tools: readonly ExposedTool[]) => Promise<T>,
): Promise<T> {
  const clientInfo = { name: config.name ?? DEFAULT_NAME, version: VERSION };
  // Pinning needs every upstream's tools now: one that is down fails the command rather than pinning nothing.
  const pool = await UpstreamPool.connect(config.upstreams, { logger, clientInfo, servesWhileDown: false });
  try {
    return await use(await pool.tools());
  } finally {
    await pool.close();
  }
}

/** Where `lock` writes: `--out` (from the working folder), the config's `pins.lockFile`, or beside the config. */
export function lockOutput(loaded: LoadedConfig, out: string | undefined): string {
  if (out !== undefined) return resolve(out);
  return lockFilePath(pinsOf(loaded.config), loaded.path) ?? join(dirname(loaded.path), DEFAULT_LOCK_FILE);
}

/** The lock file at `path` before it is rewritten: its tools; none when there is none, or when it is unusable (said). */
async function previousLock(path: string, io: CommandIo): Promise<Readonly<Record<string, LockEntry>>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  try {
    return parseLockFile(text, path).tools;
  } catch (error) {
    if (!GatewayConfigError.isInstance(error)) throw error;
    io.print(`replacing a lock file that cannot be used: ${error.message}`);
    return {};
  }
}

/** What writing `next` over `before` changes, one line per tool. */
function lockChanges(
  before: Readonly<Record<string, LockEntry>>,
  next: Readonly<Record<string, ToolDefinition>>,
): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(next)])].sort();
  return keys.flatMap((key) => {
    const old = Object.hasOwn(before, key) ? before[key] : undefined;
    const now = Object.hasOwn(next, key) ? next[key] : undefined;
    if (now === undefined) return [`  - ${key} (removed)`];
    if (old === undefined) return [`  + ${key} (new)`];
    if (old.digest === definitionDigest(now)) return [];
    return [`  ~ ${key}: ${describeChange(old.definition, now).join(', ')}`];
  });
}

/**
 * `mcp-ext-gateway lock`: connects to every upstream of the loaded config
 * and writes the lock file of all their tools (see `lockOutput`), printing
 * what changed against the lock file it replaces. Returns the path written.
 */
export async function lockTools(loaded: LoadedConfig, out: string | undefined, io: CommandIo): Promise<string> {
  const path = lockOutput(loaded, out);
  const tools = await withUpstreamTools(loaded.config, io.logger, (listed) => Promise.resolve(listed));
  const definitions = Object.fromEntries(
    tools.map((tool) => [lockKey(tool.upstream, tool.originalName), toolDefinition(tool)]),
  );
  const changes = lockChanges(await previousLock(path, io), definitions);
  await writeLockFile(path, definitions);
  const upstreams = Object.keys(loaded.config.upstreams).length;
  io.print(`locked ${tools.length} tool(s) of ${upstreams} upstream(s) in ${path}`);
  for (const line of changes) io.print(line);
  return path;
}

function unknownTool(name: string, tools: readonly ExposedTool[]): ExtensionError {
  const offered = tools.map((tool) => tool.name).sort();
  return new ExtensionError(
    'invalid_input',
    'UNKNOWN_TOOL',
    `No tool named "${name}" behind the gateway (its tools: ${offered.join(', ') || 'none'})`,
    { details: { tool: name } },
  );
}

/** Who runs the command, as the pin records it. */
export function operatorName(env: NodeJS.ProcessEnv = process.env): string {
  return env.USER ?? env.LOGNAME ?? env.USERNAME ?? 'operator';
}

/** The tool's pin before accepting; an unreadable one is said and replaced. */
async function pinBefore(source: PinSource, tool: ExposedTool, io: CommandIo): Promise<Pin | undefined> {
  try {
    return await source.pinned(tool.upstream, tool.originalName);
  } catch (error) {
    if (!ExtensionError.isInstance(error) || error.code !== PIN_UNREADABLE) throw error;
    io.print(`replacing an unreadable pin: ${error.message}`);
    return undefined;
  }
}

/** Accepts `tool`'s current definition into `source`, printing what that changes. */
async function acceptInto(source: PinSource, tool: ExposedTool, io: CommandIo): Promise<void> {
  const definition = toolDefinition(tool);
  const where = `${tool.name} (${lockKey(tool.upstream, tool.originalName)}) in ${source.location}`;
  const before = await pinBefore(source, tool, io);
  if (before?.digest === definitionDigest(definition)) {
    io.print(`${where} is pinned as it is now (${before.digest}): nothing to accept`);
    return;
  }
  const pin = await source.accept(tool.upstream, tool.originalName, definition, operatorName());
  io.print(`accepted ${where}: ${pin.digest}`);
  const changes = before === undefined ? ['(it had no pin)'] : describeChange(before.definition, definition);
  for (const change of changes) io.print(`  changed: ${change}`);
}

/**
 * `mcp-ext-gateway tools accept <tool>`: connects to the upstreams, finds
 * the tool by the name the gateway offers it under, and accepts its
 * current definition into the config's lock file, or else into the pins
 * of the store the config names.
 */
export async function acceptTool(loaded: LoadedConfig, name: string, io: CommandIo): Promise<void> {
  const tool = await withUpstreamTools(loaded.config, io.logger, (tools) => {
    const found = tools.find((listed) => listed.name === name);
    return found === undefined ? Promise.reject(unknownTool(name, tools)) : Promise.resolve(found);
  });
  const lockFile = lockFilePath(pinsOf(loaded.config), loaded.path);
  if (lockFile !== undefined) {
    await acceptInto(await LockFilePins.open(lockFile), tool, io);
    return;
  }
  const store = await openStore(loaded.config.store, io.logger);
  try {
    await acceptInto(new PinStore(store), tool, io);
  } finally {
    await store.close();
  }
}
