/**
 * Pure multimodal decisions: media ranges, tool declarations, finding the
 * binary inputs in a call's arguments, the checks that refuse them, and inline content.
 */
import { ConfigurationError, ExtensionError, type ToolInfo } from '@ext/core';
import { escapePointerSegment, firstViolation, isRecord, lazyValidator } from '@ext/core/kit';
import { DataReferenceSchema, essenceOf, isDataReference, type DataReference } from '@ext/data-references';
import {
  MEDIA_RANGE_PATTERN_SOURCE,
  MultimodalToolDeclarationSchema,
  type BinaryTransport,
  type MultimodalToolMeta,
} from './schema.js';

const MEDIA_RANGE = new RegExp(MEDIA_RANGE_PATTERN_SOURCE);

/** Whether `value` is a media range (`image/png`, `image/*`, `*\/*`). */
export function isMediaRange(value: unknown): value is string {
  return typeof value === 'string' && MEDIA_RANGE.test(value);
}

/** Whether a media type falls in a media range; parameters and case are ignored. */
export function matchesMediaRange(mimeType: string, range: string): boolean {
  const type = essenceOf(mimeType);
  const wanted = range.toLowerCase();
  if (wanted === '*/*') return true;
  if (wanted.endsWith('/*')) return type.startsWith(wanted.slice(0, -1));
  return type === wanted;
}

/** Whether any of `ranges` covers `mimeType`. */
export function accepted(mimeType: string, ranges: readonly string[]): boolean {
  return ranges.some((range) => matchesMediaRange(mimeType, range));
}

// ---------------------------------------------------------------------------
// Tool declarations
// ---------------------------------------------------------------------------

const declarationValidator = lazyValidator(MultimodalToolDeclarationSchema);

/**
 * Reads and completes what a tool's author wrote in `_meta[id]`; `undefined`
 * when the tool declares nothing. Throws a `ConfigurationError` naming the
 * tool and the field, so a typo fails at registration.
 */
export function toolDeclaration(
  tool: ToolInfo,
  id: string,
  transports: readonly BinaryTransport[],
): MultimodalToolMeta | undefined {
  const raw = tool._meta?.[id];
  if (raw === undefined) return undefined;
  const validator = declarationValidator();
  if (!validator.Check(raw)) {
    // The field is the first property named (`input_types` for `/input_types/0`): the declaration's own field.
    const { pointer } = firstViolation(validator.Errors(raw));
    const field = pointer.split('/').filter((segment) => segment !== '' && !/^\d+$/.test(segment))[0];
    const what =
      field === 'input_types' || field === 'output_types'
        ? 'must be an array of media types such as "image/png" or "image/*"'
        : field === 'max_input_size_bytes'
          ? 'must be a non-negative integer'
          : field === 'accepts_unlisted_types'
            ? 'must be a boolean'
            : 'must be an object';
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `tool "${tool.name}": _meta["${id}"]${field === undefined ? '' : `.${field}`} ${what}`,
    );
  }
  const meta: MultimodalToolMeta = {
    input_types: [...(raw.input_types ?? [])],
    output_types: [...(raw.output_types ?? [])],
    // Seed proposal 10: the types are hints, not an allowlist, unless the author says otherwise by listing some.
    accepts_unlisted_types:
      raw.accepts_unlisted_types ?? (raw.input_types === undefined || raw.input_types.length === 0),
    binary_transport: [...transports],
  };
  if (raw.max_input_size_bytes !== undefined) meta.max_input_size_bytes = raw.max_input_size_bytes;
  return meta;
}

// ---------------------------------------------------------------------------
// Finding binary inputs in arguments
// ---------------------------------------------------------------------------

export type BinaryInputKind = 'image' | 'audio' | 'blob' | 'reference';

/** A binary input found in a call's arguments. */
export interface BinaryInput {
  /** JSON Pointer relative to the request params (`/arguments/image`). */
  readonly pointer: string;
  readonly kind: BinaryInputKind;
  readonly mimeType: string;
  /** Decoded size in bytes; for a reference, its `size_bytes` (when it declares one). */
  readonly sizeBytes: number | undefined;
  /** The base64 text of an inline input. */
  readonly data?: string | undefined;
  /** The reference of an out-of-band input. */
  readonly reference?: DataReference | undefined;
}

/**
 * Why a value that is meant as a binary input is not a valid one: `pointer`
 * locates the fault, `field` names it inside the input (`data`, `ref_id`,
 * `checksum.value`).
 */
export interface InvalidInput {
  readonly invalid: string;
  readonly pointer: string;
  readonly field: string;
}

export type FoundInputs =
  | { readonly ok: true; readonly inputs: BinaryInput[] }
  | { readonly ok: false; readonly pointer: string; readonly field: string; readonly message: string };

const MAX_DEPTH = 16;
const MAX_NODES = 10_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded length of canonical base64 text, without decoding it; `undefined` when it is not base64. */
export function base64Length(text: string): number | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - padding;
}

const referenceValidator = lazyValidator(DataReferenceSchema);

/** The fields every `DataReference` carries: a value with all of them claims to be one. */
const REFERENCE_KEYS = ['ref_id', 'origin_server', 'mime_type'] as const;

/**
 * Why a value that claims to be a data reference (it has `ref_id`,
 * `origin_server` and `mime_type`) is not a valid one, or `undefined` when
 * it is valid or claims nothing (MM-7).
 */
export function invalidReference(value: Record<string, unknown>, pointer: string): InvalidInput | undefined {
  if (!REFERENCE_KEYS.every((key) => Object.hasOwn(value, key))) return undefined;
  const validator = referenceValidator();
  if (validator.Check(value)) return undefined;
  // The schema's own message and the bare instance path (a missing property is named by its parent), as ever.
  const first = validator.Errors(value)[0];
  const at = first?.instancePath ?? '';
  const field = at
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .join('.');
  return {
    invalid: `${pointer}${at} ${first?.message ?? 'is invalid'}: not a valid data reference`,
    pointer: `${pointer}${at}`,
    field,
  };
}

/** What one value is, when it is a binary input (MCP image, audio or blob content, or a data reference). */
export function detectInput(value: unknown, pointer: string): BinaryInput | InvalidInput | undefined {
  if (!isRecord(value)) return undefined;
  if (
    (value.type === 'image' || value.type === 'audio') &&
    typeof value.data === 'string' &&
    typeof value.mimeType === 'string'
  ) {
    const size = base64Length(value.data);
    if (size === undefined) return { invalid: `${pointer}/data is not base64`, pointer, field: 'data' };
    return { pointer, kind: value.type, mimeType: value.mimeType, sizeBytes: size, data: value.data };
  }
  if (value.type === 'resource' && isRecord(value.resource) && typeof value.resource.blob === 'string') {
    const size = base64Length(value.resource.blob);
    if (size === undefined) return { invalid: `${pointer}/resource/blob is not base64`, pointer, field: 'data' };
    const mimeType = typeof value.resource.mimeType === 'string' ? value.resource.mimeType : 'application/octet-stream';
    return { pointer, kind: 'blob', mimeType, sizeBytes: size, data: value.resource.blob };
  }
  if (isDataReference(value)) {
    return { pointer, kind: 'reference', mimeType: value.mime_type, sizeBytes: value.size_bytes, reference: value };
  }
  return invalidReference(value, pointer);
}

function sameInput(a: BinaryInput, b: BinaryInput): boolean {
  if (a.kind !== b.kind) return false;
  if (a.reference === undefined || b.reference === undefined) return a.data === b.data;
  return a.reference.ref_id === b.reference.ref_id && a.reference.origin_server === b.reference.origin_server;
}

/**
 * `input` at the place the multimodal stage found it in the call's
 * arguments (`known`), so a refusal names the argument; `fallback` when it
 * was not found there.
 */
export function locateInput(input: BinaryInput, known: readonly BinaryInput[], fallback: string): BinaryInput {
  return { ...input, pointer: known.find((candidate) => sameInput(candidate, input))?.pointer ?? fallback };
}

/**
 * Every binary input in a call's arguments, at any depth up to 16, in
 * document order. Bounded work: at most 10,000 values are visited. Never
 * throws; malformed base64 in an input, or a malformed data reference, is
 * reported with its pointer and field.
 */
export function findBinaryInputs(args: Readonly<Record<string, unknown>>): FoundInputs {
  const inputs: BinaryInput[] = [];
  // A stack without recursion; children go on in reverse so they come off in document order.
  const pending: { value: unknown; pointer: string; depth: number }[] = [
    { value: args, pointer: '/arguments', depth: 0 },
  ];
  for (let visited = 0; visited < MAX_NODES; visited++) {
    const item = pending.pop();
    if (item === undefined) break;
    const found = item.depth === 0 ? undefined : detectInput(item.value, item.pointer);
    if (found !== undefined) {
      if ('invalid' in found) return { ok: false, pointer: found.pointer, field: found.field, message: found.invalid };
      inputs.push(found);
      continue;
    }
    if (item.depth >= MAX_DEPTH) continue;
    const entries: [string, unknown][] = Array.isArray(item.value)
      ? (item.value as unknown[]).slice(0, MAX_NODES).map((child, index) => [String(index), child])
      : isRecord(item.value)
        ? Object.entries(item.value).slice(0, MAX_NODES)
        : [];
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, child] = entries[index] ?? ['', undefined];
      pending.push({ value: child, pointer: `${item.pointer}/${escapePointerSegment(key)}`, depth: item.depth + 1 });
    }
  }
  return { ok: true, inputs };
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

/**
 * The first reason to refuse a call's inputs, as the structured error the
 * server sends, or `undefined` when they pass: the total decoded size over
 * the limit (`PAYLOAD_TOO_LARGE`), then a media type the tool does not list
 * while it does not accept unlisted types (`UNSUPPORTED_MEDIA_TYPE`).
 */
export function checkInputs(
  inputs: readonly BinaryInput[],
  declaration: MultimodalToolMeta | undefined,
  defaultMax: number | undefined,
): ExtensionError | undefined {
  const max = declaration?.max_input_size_bytes ?? defaultMax;
  if (max !== undefined) {
    const total = inputs.reduce((sum, input) => sum + (input.sizeBytes ?? 0), 0);
    if (total > max) {
      const largest = inputs.reduce<BinaryInput | undefined>(
        (best, input) => ((input.sizeBytes ?? 0) > (best?.sizeBytes ?? -1) ? input : best),
        undefined,
      );
      return new ExtensionError(
        'invalid_input',
        'PAYLOAD_TOO_LARGE',
        `The binary inputs total ${String(total)} bytes; this tool accepts at most ${String(max)}`,
        {
          userActionable: true,
          suggestion: 'Send a smaller or more compressed file.',
          details: { size_bytes: total, max_size_bytes: max, pointer: largest?.pointer ?? '/arguments' },
        },
      );
    }
  }
  if (declaration !== undefined && !declaration.accepts_unlisted_types) {
    const refused = inputs.find((input) => !accepted(input.mimeType, declaration.input_types));
    if (refused !== undefined) {
      return new ExtensionError(
        'invalid_input',
        'UNSUPPORTED_MEDIA_TYPE',
        `This tool does not take ${essenceOf(refused.mimeType)} input`,
        {
          userActionable: true,
          suggestion: `Send one of: ${declaration.input_types.join(', ')}.`,
          details: {
            mime_type: refused.mimeType,
            accepted_types: [...declaration.input_types],
            pointer: refused.pointer,
          },
        },
      );
    }
  }
  return undefined;
}

/** The inline MCP value for bytes: image or audio content, or an embedded blob resource. */
export function inlineInput(bytes: Uint8Array, mimeType: string): Record<string, unknown> {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const type = essenceOf(mimeType);
  if (type.startsWith('image/')) return { type: 'image', data, mimeType };
  if (type.startsWith('audio/')) return { type: 'audio', data, mimeType };
  return { type: 'resource', resource: { uri: 'urn:io.github.mcp-ext:multimodal:inline', mimeType, blob: data } };
}
