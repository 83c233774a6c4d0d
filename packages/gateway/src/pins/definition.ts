/**
 * A tool's definition as it is pinned, its digest, and what changed between
 * two of them. Pure.
 *
 * Pinned: everything the model reads or the host acts on, and that the
 * gateway passes on — name, title, description, input and output schemas,
 * annotations. Not pinned: the upstream's `_meta` (the gateway never passes
 * it on: a proxied tool's `_meta` is built from policy, see `tool-meta.ts`,
 * and upstreams put build ids and other churn there, which would block tools
 * for no reason) and `icons` (the gateway does not pass those on either).
 */
import { canonicalHash, isRecord, jsonEqual, type JsonValue } from '@ext/core/kit';
import Type from 'typebox';
import { fieldName, type FieldPath } from '../config/errors.js';
import type { ExposedTool, UpstreamTool } from '../upstream/index.js';

/** A JSON object, as a tool's schemas and annotations are. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** A tool's definition as an MCP `tools/list` entry gives it, minus what is not pinned. */
export interface ToolDefinition {
  /** The tool's name at its upstream. */
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject | undefined;
  readonly annotations?: JsonObject | undefined;
}

const JsonObjectSchema = Type.Record(Type.String(), Type.Unknown());

/** A `ToolDefinition` as it is kept (in the store or a lock file), checked when it is read back. */
export const ToolDefinitionSchema = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    inputSchema: JsonObjectSchema,
    outputSchema: Type.Optional(JsonObjectSchema),
    annotations: Type.Optional(JsonObjectSchema),
  },
  { additionalProperties: false, title: 'ToolDefinition' },
);

/** The pinned fields, in the order changes are reported. */
export const PINNED_FIELDS = ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** At most this many entries in a change description: enough to review, short enough for an error. */
const MAX_CHANGES = 5;
/** Path segments a change is named down to: `inputSchema.properties.path`, `annotations.destructiveHint`. */
const MAX_CHANGE_DEPTH = 3;

/**
 * The pinned part of `tool`. An `ExposedTool` is pinned under its name at
 * its upstream (`originalName`), so adding a second upstream to the config,
 * which namespaces every exposed name, changes no digest.
 */
export function toolDefinition(tool: UpstreamTool | ExposedTool): ToolDefinition {
  // The tool came off the wire in a JSON-RPC message: its schemas and annotations are JSON.
  const json = (value: unknown) => value as JsonObject | undefined;
  return pinnedDefinition({
    name: 'originalName' in tool ? tool.originalName : tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as JsonObject,
    outputSchema: json(tool.outputSchema),
    annotations: json(tool.annotations),
  });
}

/** `definition` with only the pinned fields, absent ones left out (anything else a caller passed, such as `_meta`, is dropped). */
export function pinnedDefinition(definition: ToolDefinition): ToolDefinition {
  const { name, title, description, inputSchema, outputSchema, annotations } = definition;
  return {
    name,
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
  };
}

/**
 * `sha256:` and the hex SHA-256 of the canonical JSON (RFC 8785) of the
 * pinned fields: member order and unpinned fields (`_meta`) do not matter.
 */
export function definitionDigest(definition: ToolDefinition): string {
  return `sha256:${canonicalHash(pinnedDefinition(definition))}`;
}

/**
 * What changed from `before` to `after`, as field paths in a fixed order
 * (`description`, `inputSchema.properties.path (added)`,
 * `annotations.destructiveHint`); at most five entries, the last one
 * saying how many more there are. Empty when the pinned fields are equal.
 */
export function describeChange(before: ToolDefinition, after: ToolDefinition): string[] {
  const paths = PINNED_FIELDS.flatMap((field) => changedPaths(before[field], after[field], [field]));
  if (paths.length <= MAX_CHANGES) return paths;
  const shown = paths.slice(0, MAX_CHANGES - 1);
  return [...shown, `and ${String(paths.length - shown.length)} more`];
}

function changedPaths(before: unknown, after: unknown, path: FieldPath): string[] {
  if (jsonEqual(before, after)) return [];
  if (before === undefined) return [`${fieldName(path)} (added)`];
  if (after === undefined) return [`${fieldName(path)} (removed)`];
  if (!isRecord(before) || !isRecord(after) || path.length >= MAX_CHANGE_DEPTH) return [fieldName(path)];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((key) => changedPaths(before[key], after[key], [...path, key]));
}
