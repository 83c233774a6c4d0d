/**
 * The one error a bad gateway config (or a manifest it names) raises, and the
 * two ways it names a field: a dotted path a person reads
 * (`policy["write_*"].cost.quota.limit`) and a JSON Pointer.
 */
import { brandError, isBrandedError, jsonPointer } from '@ext/core/kit';
import { ConfigurationError } from '@ext/core';

/** A place in a document: property names and array indexes from the root. */
export type FieldPath = readonly (string | number)[];

/** Where a config error is, and what is wrong there. */
export interface ConfigFault {
  readonly path: FieldPath;
  /** What is wrong and what is allowed, without the field's name (`must be an integer of at least 1, got 0`). */
  readonly problem: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path` as a person writes it: `upstreams.fs.command`, `policy["write_*"]`, `intent[0].pattern`; `''` for the root. */
export function fieldName(path: FieldPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/** Where the error was found, for its message and properties. */
export interface ErrorPlace {
  /** The file (or other name) the document came from. */
  readonly source?: string | undefined;
  /** 1-based line in that document, when known. */
  readonly line?: number | undefined;
}

/**
 * A gateway config that cannot be used: `field` names the field at fault as
 * a dotted path (`''` for the whole document), `pointer` as a JSON Pointer,
 * both relative to `source` (the config file, or a manifest it names).
 */
export class GatewayConfigError extends ConfigurationError {
  static override readonly brand: string = 'io.github.mcp-ext/gateway/GatewayConfigError';
  readonly field: string;
  readonly pointer: string;
  readonly source: string | undefined;
  readonly line: number | undefined;

  constructor(message: string, details: { field: string; pointer: string } & ErrorPlace) {
    super('INVALID_CONFIG', message);
    this.name = 'GatewayConfigError';
    this.field = details.field;
    this.pointer = details.pointer;
    this.source = details.source;
    this.line = details.line;
    brandError(this, GatewayConfigError.brand);
  }

  static override isInstance(value: unknown): value is GatewayConfigError {
    return isBrandedError(value, GatewayConfigError.brand);
  }
}

/** The error for `fault`: its message starts with the place, then names the field and says the problem. */
export function configError(fault: ConfigFault, place: ErrorPlace = {}): GatewayConfigError {
  const field = fieldName(fault.path);
  const where = [place.source, place.line === undefined ? undefined : `line ${place.line}`]
    .filter((part) => part !== undefined)
    .join(' ');
  const subject = field === '' ? 'the document' : field;
  const message = `${where === '' ? '' : `${where}: `}${subject} ${fault.problem}`;
  return new GatewayConfigError(message, { field, pointer: jsonPointer(...fault.path), ...place });
}

// JSON.stringify gives `undefined` for functions and symbols, whatever its declared type says.
function toJson(value: unknown): string | undefined {
  return JSON.stringify(value);
}

/** A value shown in a message: JSON, cut short. */
export function preview(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let text: string;
  try {
    text = toJson(value) ?? typeof value;
  } catch {
    // A value JSON cannot show (a cycle, a bigint) is named by its type.
    text = typeof value;
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
