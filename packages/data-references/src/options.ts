/** The options of `dataReferencesServer`: what a server produces and imports, checked once at construction. */
import { ConfigurationError } from '@ext/core';
import { resolveImportPolicy, type ImportPolicy, type ResolvedImportPolicy } from './import-policy.js';
import type { ReferenceOrigin } from './origin-types.js';
import { originSink, type SinkFactory } from './sinks.js';

export interface DataReferencesImportOptions extends ImportPolicy {
  /** Where imported bytes go. Default: into the `origin`, so each import becomes this server's own reference. */
  readonly sink?: SinkFactory | undefined;
}

export interface DataReferencesServerOptions {
  /** Mints and serves this server's references (and takes uploads when the origin enables them). */
  readonly origin?: ReferenceOrigin | undefined;
  /** Serves `<id>/import`: the policy for fetching other servers' references. Default: no import. */
  readonly import?: DataReferencesImportOptions | undefined;
}

/** A server's checked options: its origin, and its import policy with the sink imports go to. */
export interface ServerConfig {
  readonly origin: ReferenceOrigin | undefined;
  readonly policy: ResolvedImportPolicy | undefined;
  readonly importSink: SinkFactory | undefined;
}

const SERVER = 'dataReferencesServer';

/** Checks the options; throws a `ConfigurationError` naming what is missing or malformed. */
export function serverConfig(options: DataReferencesServerOptions): ServerConfig {
  const origin = options.origin;
  if (origin !== undefined && (typeof origin !== 'object' || typeof origin.handle !== 'function')) {
    throw new ConfigurationError('INVALID_OPTION', `${SERVER}: origin must come from createReferenceOrigin()`);
  }
  if (origin === undefined && options.import === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${SERVER}: give an origin (to produce references), an import policy (to consume them), or both`,
    );
  }
  const policy = options.import === undefined ? undefined : resolveImportPolicy(options.import, `${SERVER}: import`);
  const importSink = options.import?.sink ?? (origin === undefined ? undefined : originSink(origin));
  if (policy !== undefined && importSink === undefined) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${SERVER}: import needs a sink (import.sink, e.g. fileSink(directory)) or an origin to keep imports in`,
    );
  }
  if (options.import?.sink !== undefined && typeof options.import.sink !== 'function') {
    throw new ConfigurationError('INVALID_OPTION', `${SERVER}: import.sink must be a function (target) => ImportSink`);
  }
  return { origin, policy, importSink };
}
