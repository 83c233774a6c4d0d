/**
 * Pins kept in the gateway's store, trusted on first use: the first
 * definition of a tool any gateway instance sees is pinned, atomically
 * (`setIfAbsent`), and later ones are judged against it.
 *
 * Key layout: `gateway:pins:<upstream>:<tool>` (upstream names hold no `:`,
 * so the key is unambiguous whatever the tool's name), value
 * `{ digest, definition, pinnedAt, acceptedBy?, acceptedAt? }`.
 */
import { ExtensionError, type Store } from '@ext/core';
import { type JsonValue } from '@ext/core/kit';
import Type from 'typebox';
import { fieldName } from '../config/errors.js';
import { explain } from '../config/explain.js';
import { definitionDigest, pinnedDefinition, ToolDefinitionSchema, type ToolDefinition } from './definition.js';
import type { Pin, PinSource } from './pin-source.js';

/** Every pin's key starts with this. */
export const PIN_KEY_PREFIX = 'gateway:pins:';

/** The code of the error a stored value that is not a pin raises. */
export const PIN_UNREADABLE = 'PIN_UNREADABLE';

const StoredPinSchema = Type.Object(
  {
    digest: Type.String(),
    definition: ToolDefinitionSchema,
    pinnedAt: Type.String(),
    acceptedBy: Type.Optional(Type.String()),
    acceptedAt: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** The store key of the pin of `tool` at `upstream`. */
export function pinKey(upstream: string, tool: string): string {
  return `${PIN_KEY_PREFIX}${upstream}:${tool}`;
}

function unreadable(key: string, field: string, problem: string): ExtensionError {
  const subject = field === '' ? 'its value' : field;
  return new ExtensionError(
    'permanent',
    PIN_UNREADABLE,
    `The pin at store key ${key} is unreadable: ${subject} ${problem}`,
    {
      details: { key, field },
      suggestion: 'Accept the tool again (mcp-ext-gateway tools accept <tool>) to replace the pin.',
    },
  );
}

/** `value` read from `key` as a pin; a value another version (or a hand) wrote wrongly is named, not trusted. */
function readPin(key: string, value: JsonValue): Pin {
  const fault = explain(StoredPinSchema, value);
  if (fault !== undefined) throw unreadable(key, fieldName(fault.path), fault.problem);
  const pin = value as unknown as Pin;
  if (definitionDigest(pin.definition) !== pin.digest) throw unreadable(key, 'digest', 'does not match its definition');
  return pin;
}

/** `record` (whose members are JSON or `undefined`) without its `undefined` members, as the store takes it. */
function jsonRecord(record: object): JsonValue {
  const members: [string, unknown][] = Object.entries(record);
  return Object.fromEntries(members.filter(([, value]) => value !== undefined)) as JsonValue;
}

function storedPin(pin: Pin): JsonValue {
  return jsonRecord({ ...pin, definition: jsonRecord(pin.definition) });
}

export interface PinStoreOptions {
  /** The clock pins are dated by (tests). */
  readonly now?: (() => Date) | undefined;
}

/** Pins in a `Store`, shared by every gateway instance on it. */
export class PinStore implements PinSource {
  readonly reviewed = false;
  readonly location = 'the store';
  readonly #store: Store;
  readonly #now: () => Date;

  constructor(store: Store, options: PinStoreOptions = {}) {
    this.#store = store;
    this.#now = options.now ?? (() => new Date());
  }

  /** A pin of `definition` dated now; `acceptedBy` when it replaces an earlier one. */
  #pin(definition: ToolDefinition, acceptedBy?: string): Pin {
    const at = this.#now().toISOString();
    const pinned = pinnedDefinition(definition);
    const pin = { digest: definitionDigest(pinned), definition: pinned, pinnedAt: at };
    return acceptedBy === undefined ? pin : { ...pin, acceptedBy, acceptedAt: at };
  }

  async pinned(upstream: string, tool: string): Promise<Pin | undefined> {
    const key = pinKey(upstream, tool);
    const value = await this.#store.get(key);
    return value === undefined ? undefined : readPin(key, value);
  }

  async pinIfAbsent(upstream: string, tool: string, definition: ToolDefinition): Promise<Pin> {
    const pin = this.#pin(definition);
    if (await this.#store.setIfAbsent(pinKey(upstream, tool), storedPin(pin))) return pin;
    const holding = await this.pinned(upstream, tool);
    // Present a moment ago and gone now: an operator deleted it in between, so this definition may be first again.
    return holding ?? this.pinIfAbsent(upstream, tool, definition);
  }

  async accept(upstream: string, tool: string, definition: ToolDefinition, acceptedBy: string): Promise<Pin> {
    const pin = this.#pin(definition, acceptedBy);
    await this.#store.set(pinKey(upstream, tool), storedPin(pin));
    return pin;
  }
}
