/**
 * Pure: the event types a server declares, checked and compiled once into a
 * catalog (descriptors for `<id>/list`, payload and filter checks, matching).
 */
import { canonicalJson, firstViolation, isRecord, type CompiledValidator } from '@ext/core/kit';
import { ConfigurationError } from '@ext/core';
import type { TSchema } from 'typebox';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { EVENT_NAME_PATTERN_SOURCE, SUBSCRIPTION_ID_PATTERN_SOURCE, type EventTypeDescriptor } from './schema.js';

/** How a server author declares one event type. */
export interface EventDefinition<P extends TSchema = TSchema, F extends TSchema = TSchema> {
  /** What happened, for people and models choosing what to subscribe to. */
  readonly description: string;
  /** TypeBox object schema of the payload; `publish` checks payloads against it. */
  readonly payload: P;
  /** TypeBox object schema of the filter arguments subscribers may pass. Default: none accepted. */
  readonly filter?: F | undefined;
  /**
   * Whether an event matches a subscriber's filter (restricted to the
   * fields this type declares). Default: every filter field equals the
   * payload's field of the same name (a filter array matches any of its items).
   */
  readonly match?:
    ((filter: Readonly<Record<string, unknown>>, payload: Readonly<Record<string, unknown>>) => boolean) | undefined;
}

/** An event type ready for use: its definition compiled once. */
export interface CatalogEntry {
  readonly name: string;
  readonly descriptor: EventTypeDescriptor;
  readonly filterFields: ReadonlySet<string>;
  /** First violation of a payload, or `undefined` when valid. */
  checkPayload(payload: unknown): Violation | undefined;
  /** First violation of a filter restricted to this type's fields, or `undefined`. */
  checkFilter(filter: Readonly<Record<string, unknown>>): Violation | undefined;
  match(filter: Readonly<Record<string, unknown>>, payload: Readonly<Record<string, unknown>>): boolean;
}

export type Catalog = ReadonlyMap<string, CatalogEntry>;

/** A failed check: JSON Pointer of the offending value (relative to what was checked) and why. */
export interface Violation {
  readonly pointer: string;
  readonly message: string;
}

const EVENT_NAME = new RegExp(EVENT_NAME_PATTERN_SOURCE);
const SUBSCRIPTION_ID = new RegExp(SUBSCRIPTION_ID_PATTERN_SOURCE);

/** Whether `value` is a well-formed event type name. */
export function isEventName(value: unknown): value is string {
  return typeof value === 'string' && EVENT_NAME.test(value);
}

/** Whether `value` is a well-formed subscription id. */
export function isSubscriptionId(value: unknown): value is string {
  return typeof value === 'string' && SUBSCRIPTION_ID.test(value);
}

/** The first violation a compiled check reports, as pointer and message. */
function violationOf(check: CompiledValidator<TSchema>, value: unknown): Violation | undefined {
  if (check.Check(value)) return undefined;
  const { pointer, message } = firstViolation(check.Errors(value));
  return { pointer, message };
}

type ObjectSchema = TSchema & { properties?: Record<string, unknown> };

function isObjectSchema(schema: unknown): schema is ObjectSchema {
  return typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'object';
}

function toJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/**
 * The default filter match: every filter field equals the payload's field
 * of the same name (canonical JSON equality); a filter value that is an
 * array matches any of its items when the payload's value is not an array.
 */
export function defaultMatch(
  filter: Readonly<Record<string, unknown>>,
  payload: Readonly<Record<string, unknown>>,
): boolean {
  for (const [field, wanted] of Object.entries(filter)) {
    // The filter's fields are the subscriber's: a name the payload does not own (`constructor`) matches nothing.
    const actual = Object.hasOwn(payload, field) ? payload[field] : undefined;
    if (actual === undefined) return false;
    const actualJson = canonicalJson(actual);
    if (Array.isArray(wanted) && !Array.isArray(actual)) {
      if (!wanted.some((option) => canonicalJson(option) === actualJson)) return false;
    } else if (canonicalJson(wanted) !== actualJson) {
      return false;
    }
  }
  return true;
}

/** The filter schema of a definition, refusing what is not an object schema. Throws `ConfigurationError`. */
function checkDefinition(name: string, definition: EventDefinition, where: string): ObjectSchema {
  if (!isEventName(name)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: event name ${JSON.stringify(name)} must match ${EVENT_NAME_PATTERN_SOURCE}`,
    );
  }
  if (!isRecord(definition) || typeof definition.description !== 'string' || definition.description.length === 0) {
    throw new ConfigurationError('INVALID_OPTION', `${where}: event "${name}" needs a description`);
  }
  if (!isObjectSchema(definition.payload)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: event "${name}": payload must be a TypeBox object schema (Type.Object)`,
    );
  }
  const filterSchema = definition.filter ?? Type.Object({}, { additionalProperties: false });
  if (!isObjectSchema(filterSchema)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: event "${name}": filter must be a TypeBox object schema (Type.Object)`,
    );
  }
  if (definition.match !== undefined && typeof definition.match !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${where}: event "${name}": match must be a function`);
  }
  return filterSchema;
}

/** Validates the author's event declarations and compiles them. Throws `ConfigurationError` naming the event. */
export function buildCatalog(events: Readonly<Record<string, EventDefinition>>, where: string): Catalog {
  if (!isRecord(events) || Object.keys(events).length === 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: events must declare at least one event type ({ name: { description, payload } })`,
    );
  }
  const catalog = new Map<string, CatalogEntry>();
  for (const [name, definition] of Object.entries(events)) {
    const filterSchema = checkDefinition(name, definition, where);
    const payloadCheck = Compile(definition.payload);
    const filterCheck = Compile(filterSchema);
    const filterFields = new Set(Object.keys(filterSchema.properties ?? {}));
    catalog.set(name, {
      name,
      descriptor: {
        name,
        description: definition.description,
        payload_schema: toJsonSchema(definition.payload),
        filter_schema: toJsonSchema(filterSchema),
      },
      filterFields,
      checkPayload: (payload) => violationOf(payloadCheck, payload),
      checkFilter: (filter) => violationOf(filterCheck, filter),
      match: definition.match ?? defaultMatch,
    });
  }
  return catalog;
}

/** The part of a subscriber's filter that one event type declares. */
export function projectFilter(
  filter: Readonly<Record<string, unknown>>,
  fields: ReadonlySet<string>,
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filter).filter(([field]) => fields.has(field)));
}
