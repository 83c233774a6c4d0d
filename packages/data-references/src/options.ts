/** The options of `dataReferencesServer`: what a server produces and imports, checked once at construction. */
import { ConfigurationError } from '@ext/core';
import { isRecord, type Resolved } from '@ext/core/kit';
import { resolveImportPolicy, type ImportPolicy, type ResolvedImportPolicy } from './import-policy.js';
import { byteCountOption } from './option-checks.js';
import type { ReferenceOrigin } from './origin-types.js';
import { DEFAULT_RESOURCE_MAX_BYTES } from './resources.js';
import { originSink, type SinkFactory } from './sinks.js';

export interface DataReferencesImportOptions extends ImportPolicy {
  /** Where imported bytes go. Default: into the `origin`, so each import becomes this server's own reference. */
  readonly sink?: SinkFactory | undefined;
}

/** How the origin's references are read through MCP's `resources/read` (DREF-23). */
export interface DataReferencesResourceOptions {
  /** The largest reference answered, in bytes; a larger one is refused with `PAYLOAD_TOO_LARGE`. Default 4 MiB. */
  readonly maxBytes?: number | undefined;
}

export interface DataReferencesServerOptions {
  /** Mints and serves this server's references (and takes uploads when the origin enables them). */
  readonly origin?: ReferenceOrigin | undefined;
  /** Serves `<id>/import`: the policy for fetching other servers' references. Default: no import. */
  readonly import?: DataReferencesImportOptions | undefined;
  /**
   * With an origin: its references are also read through `resources/read`
   * (the server advertises `resources`), so a host that knows nothing of the
   * extension can read a `resource_link` it cannot fetch. `false` turns it
   * off. Default: on, up to 4 MiB.
   */
  readonly resources?: DataReferencesResourceOptions | boolean | undefined;
}

/** A server's checked options: its origin (if any), and its import policy with the sink imports go to. */
export type ServerConfig = Resolved<Pick<DataReferencesServerOptions, 'origin'>, 'origin'> & {
  readonly policy: ResolvedImportPolicy | undefined;
  readonly importSink: SinkFactory | undefined;
  /** The largest reference `resources/read` answers, or `undefined` when references are not resources. */
  readonly resourceMaxBytes: number | undefined;
};

const SERVER = 'dataReferencesServer';

/** Checks the options; throws a `ConfigurationError` naming what is missing or malformed. */
export function serverConfig(options: DataReferencesServerOptions): ServerConfig {
  const { origin, import: importOptions, resources } = options;
  if (origin !== undefined && (typeof origin !== 'object' || typeof origin.handle !== 'function')) {
    throw new ConfigurationError('INVALID_OPTION', `${SERVER}: origin must come from createReferenceOrigin()`);
  }
  if (origin === undefined && importOptions === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${SERVER}: give an origin (to produce references), an import policy (to consume them), or both`,
    );
  }
  const policy = importOptions === undefined ? undefined : resolveImportPolicy(importOptions, `${SERVER}: import`);
  const importSink = importOptions?.sink ?? (origin === undefined ? undefined : originSink(origin));
  if (policy !== undefined && importSink === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${SERVER}: import needs a sink (import.sink, e.g. fileSink(directory)) or an origin to keep imports in`,
    );
  }
  if (importOptions?.sink !== undefined && typeof importOptions.sink !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${SERVER}: import.sink must be a function (target) => ImportSink`);
  }
  return { origin, policy, importSink, resourceMaxBytes: resourceMaxBytes(resources, origin) };
}

/** The cap of `resources/read`, or `undefined` when it is off (no origin, or `resources: false`). */
function resourceMaxBytes(
  option: DataReferencesResourceOptions | boolean | undefined,
  origin: ReferenceOrigin | undefined,
): number | undefined {
  if (option === false || origin === undefined) return undefined;
  if (option === undefined || option === true) return DEFAULT_RESOURCE_MAX_BYTES;
  // A JavaScript caller may pass anything.
  const given: unknown = option;
  if (!isRecord(given))
    throw new ConfigurationError('INVALID_OPTION', `${SERVER}: resources must be a boolean or { maxBytes }`);
  return byteCountOption(SERVER, 'resources.maxBytes', option.maxBytes, DEFAULT_RESOURCE_MAX_BYTES);
}
