/**
 * Where pins come from: the gateway's store (trust on first use) or the
 * operator's lock file (the reviewed set). Both are a `PinSource`;
 * `openPinSource` picks the one the config names.
 */
import type { Store } from '@ext/core';
import type { ToolDefinition } from './definition.js';
import { LockFilePins } from './lock-file-pins.js';
import { PinStore } from './pin-store.js';

/** A pinned tool definition. */
export interface Pin {
  /** `definitionDigest(definition)`. */
  readonly digest: string;
  /** Kept so a change can be described, not only detected. */
  readonly definition: ToolDefinition;
  /** When it was pinned (ISO 8601); absent for a lock file's pins, whose history is the repository's. */
  readonly pinnedAt?: string | undefined;
  /** Who accepted it over an earlier pin; absent when it was pinned on first sight. */
  readonly acceptedBy?: string | undefined;
  /** When it was accepted (ISO 8601), with `acceptedBy`. */
  readonly acceptedAt?: string | undefined;
}

/** Pins of upstream tools, by upstream name and the tool's name there. */
export interface PinSource {
  /**
   * `true` for a lock file: its pins are the set an operator reviewed, so a
   * tool it lacks counts as changed, and the gateway never writes it while
   * serving (only `mcp-ext-gateway lock` and `tools accept` do).
   */
  readonly reviewed: boolean;
  /** Where the pins are, for messages (`the store`, a lock file's path). */
  readonly location: string;
  pinned(upstream: string, tool: string): Promise<Pin | undefined>;
  /** Pins `definition` unless the tool has a pin; returns the pin that holds, either way. */
  pinIfAbsent(upstream: string, tool: string, definition: ToolDefinition): Promise<Pin>;
  /** Pins `definition` over any earlier pin, recording `acceptedBy` and the time. */
  accept(upstream: string, tool: string, definition: ToolDefinition, acceptedBy: string): Promise<Pin>;
}

export interface PinSourceOptions {
  /** The lock file's absolute path (`lockFilePath`), when the config names one. */
  readonly lockFile?: string | undefined;
  /** The gateway's store, used when there is no lock file. */
  readonly store: Store;
  /** The clock pins are dated by (tests). */
  readonly now?: (() => Date) | undefined;
}

/** The pins the config names: its lock file (read now, so a bad one stops the start) or else the store. */
export async function openPinSource(options: PinSourceOptions): Promise<PinSource> {
  if (options.lockFile !== undefined) return LockFilePins.open(options.lockFile);
  return new PinStore(options.store, { now: options.now });
}
