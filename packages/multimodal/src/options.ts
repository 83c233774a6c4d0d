/** The options of both halves, checked at construction: each error names the factory and the option. */
import { ConfigurationError } from '@ext/core';
import { nonNegativeIntegerOption, type Resolved } from '@ext/core/kit';
import { isMediaRange } from './logic.js';
import type { BinaryTransport } from './schema.js';

export interface MultimodalServerOptions {
  /**
   * Accept binary inputs uploaded out of band (raw bytes to the
   * data-references upload endpoint, then passed as a reference). Needs
   * `dataReferencesServer({ origin })` with uploads enabled. Default `false`.
   */
  readonly outOfBand?: boolean | undefined;
  /** Limit on the binary inputs of tools that declare none, in bytes. Default: none. */
  readonly maxInputSizeBytes?: number | undefined;
  /** Media types the server's tools accept overall, advertised as `mimeTypes`. Default: not advertised. */
  readonly mimeTypes?: readonly string[] | undefined;
}

export interface MultimodalClientOptions {
  /** Media types this client can show to its user, advertised as `mimeTypes`. Default: not advertised. */
  readonly mimeTypes?: readonly string[] | undefined;
  /** Send binary inputs out of band when the server can take them. Default `true`. */
  readonly outOfBand?: boolean | undefined;
  /** Inputs smaller than this stay inline (an upload costs two more round trips). Default 64 KiB. */
  readonly minOutOfBandBytes?: number | undefined;
}

/** Throws `INVALID_OPTION` unless every entry of `mimeTypes` is a media range. */
function checkMediaRanges(factory: string, mimeTypes: readonly string[] | undefined): void {
  for (const [index, type] of (mimeTypes ?? []).entries()) {
    if (!isMediaRange(type))
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${factory}: mimeTypes[${String(index)}] must be a media type such as "image/png" or "image/*"`,
      );
  }
}

/** The ways binary may travel to or from a side that does, or does not, take it out of band. */
function transportsFor(outOfBand: boolean): BinaryTransport[] {
  return outOfBand ? ['base64', 'data-reference'] : ['base64'];
}

/** The server half's checked options (`maxInputSizeBytes` has no default), and the transports they allow. */
export type ServerConfig = Resolved<Omit<MultimodalServerOptions, 'mimeTypes'>, 'maxInputSizeBytes'> & {
  readonly transports: BinaryTransport[];
};

export function serverConfig(options: MultimodalServerOptions): ServerConfig {
  const where = 'multimodalServer';
  const { outOfBand = false, maxInputSizeBytes, mimeTypes } = options;
  if (typeof outOfBand !== 'boolean')
    throw new ConfigurationError('INVALID_OPTION', `${where}: outOfBand must be a boolean`);
  nonNegativeIntegerOption(where, 'maxInputSizeBytes', maxInputSizeBytes, undefined);
  checkMediaRanges(where, mimeTypes);
  return { outOfBand, maxInputSizeBytes, transports: transportsFor(outOfBand) };
}

/** The client half's checked options, and the transports they allow. */
export type ClientConfig = Resolved<Omit<MultimodalClientOptions, 'mimeTypes'>> & {
  readonly transports: BinaryTransport[];
};

export function clientConfig(options: MultimodalClientOptions): ClientConfig {
  const where = 'multimodalClient';
  const { mimeTypes, minOutOfBandBytes = 64 * 1024, outOfBand = true } = options;
  checkMediaRanges(where, mimeTypes);
  nonNegativeIntegerOption(where, 'minOutOfBandBytes', minOutOfBandBytes);
  return { outOfBand, minOutOfBandBytes, transports: transportsFor(outOfBand) };
}
