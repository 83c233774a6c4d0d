/** The `./client` entry: `dataReferencesClient`, and reading, importing and uploading references from a client. */
import { Readable } from 'node:stream';
import {
  ConfigurationError,
  ExtensionError,
  type ClientExtension,
  type ExtendedClient,
  type ToolResult,
} from '@ext/core';
import { lazyValidator } from '@ext/core/kit';
import { importRequestFor, isDataReference, isMimeType, referencesInResult } from './logic.js';
import {
  DATA_REFERENCES_ID,
  DATA_REFERENCES_PACKAGE,
  DATA_REFERENCES_WIRE_VERSION,
  DataReferencesServerSettingsSchema,
  ImportFromRefResponseSchema,
  UploadTicketSchema,
  type DataReference,
  type DataReferencesServerSettings,
  type ImportFromRefResponse,
  type UploadTicket,
} from './schema.js';

/**
 * The client half: advertises that this client understands references in
 * `result._meta`, so servers send them (they send a `resource_link`
 * either way).
 */
export function dataReferencesClient(): ClientExtension {
  return {
    side: 'client',
    name: DATA_REFERENCES_PACKAGE,
    ids: [DATA_REFERENCES_ID],
    settings: { version: DATA_REFERENCES_WIRE_VERSION },
    peerSettings: DataReferencesServerSettingsSchema,
  };
}

/** The server's data-references settings, or `undefined` when it does not negotiate the extension. */
export function getDataReferencesSettings(client: ExtendedClient): DataReferencesServerSettings | undefined {
  return client.negotiated<DataReferencesServerSettings>(DATA_REFERENCES_ID)?.settings;
}

/** The references a tool result hands out (`result._meta[<id>]`), validated; `[]` when none. */
export function referencesIn(result: ToolResult): DataReference[] {
  return referencesInResult(result, DATA_REFERENCES_ID);
}

const importResponse = lazyValidator(ImportFromRefResponseSchema);
const uploadTicket = lazyValidator(UploadTicketSchema);

function invalidResponse(what: string): ExtensionError {
  return new ExtensionError('permanent', 'INVALID_RESPONSE', `The server answered ${what} with a malformed result`);
}

// The protocol may add its own `_meta` to any result; the payload is the rest.
function withoutMeta(result: Record<string, unknown>): Record<string, unknown> {
  const { _meta: _ignored, ...payload } = result;
  return payload;
}

/**
 * Asks `target` to import a reference another server produced: the bytes
 * go from origin to target directly, never through this client. Resolves
 * to the `ImportFromRefResponse` (`imported`, or `failed` with a structured
 * error), or `undefined` when `target` does not serve imports.
 */
export async function importReference(
  target: ExtendedClient,
  reference: DataReference,
  options: { targetFormat?: string | undefined; timeoutMs?: number | undefined } = {},
): Promise<ImportFromRefResponse | undefined> {
  const negotiated = target.negotiated<DataReferencesServerSettings>(DATA_REFERENCES_ID);
  if (negotiated?.settings.import === undefined) return undefined;
  const method = `${negotiated.id}/import`;
  const result = withoutMeta(
    await target.request(
      method,
      { ...importRequestFor(reference, options.targetFormat) },
      options.timeoutMs === undefined ? undefined : { timeoutMs: options.timeoutMs },
    ),
  );
  if (!importResponse().Check(result)) throw invalidResponse(method);
  return result;
}

/** A single-use upload URL from the server, or `undefined` when it takes no uploads. */
export async function requestUpload(
  client: ExtendedClient,
  request: { mimeType: string; sizeBytes?: number | undefined },
): Promise<UploadTicket | undefined> {
  const negotiated = client.negotiated<DataReferencesServerSettings>(DATA_REFERENCES_ID);
  if (negotiated?.settings.upload === undefined) return undefined;
  if (!isMimeType(request.mimeType)) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `requestUpload: mimeType must be a media type such as image/png, got ${JSON.stringify(request.mimeType)}`,
    );
  }
  const params: Record<string, unknown> = { mime_type: request.mimeType };
  if (request.sizeBytes !== undefined) params.size_bytes = request.sizeBytes;
  const method = `${negotiated.id}/upload`;
  const result = withoutMeta(await client.request(method, params));
  if (!uploadTicket().Check(result)) throw invalidResponse(method);
  return result;
}

/** What {@link uploadData} sends: bytes, a web stream, or any async iterable of chunks (sent as a stream). */
export type UploadBody = Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface UploadDataOptions {
  readonly mimeType: string;
  /** The size when the body is a stream: refused at once when over the server's limit. */
  readonly sizeBytes?: number | undefined;
  /** The fetch to use. Default the global `fetch`. */
  readonly fetch?: typeof fetch | undefined;
  readonly signal?: AbortSignal | undefined;
}

function uploadFailure(status: number, text: string): ExtensionError {
  if (status === 413) {
    return new ExtensionError('invalid_input', 'PAYLOAD_TOO_LARGE', 'The server refused the upload as too large', {
      userActionable: true,
      details: { status },
    });
  }
  const transient = status >= 500 || status === 429;
  return new ExtensionError(
    transient ? 'transient' : 'permanent',
    'UPLOAD_FAILED',
    `The upload was refused: HTTP ${String(status)} ${text.slice(0, 200).trim()}`,
    {
      details: { status },
    },
  );
}

/**
 * Sends raw bytes to the server out of band (an upload URL from `<id>/upload`,
 * then one HTTP `PUT`, no base64, no JSON) and returns the server's
 * reference to them, to pass in tool arguments. `undefined` when the server
 * takes no uploads.
 */
export async function uploadData(
  client: ExtendedClient,
  body: UploadBody,
  options: UploadDataOptions,
): Promise<DataReference | undefined> {
  const size = body instanceof Uint8Array ? body.byteLength : options.sizeBytes;
  const ticket = await requestUpload(client, { mimeType: options.mimeType, sizeBytes: size });
  if (ticket === undefined) return undefined;
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'content-type': options.mimeType };
  let payload: NonNullable<RequestInit['body']>;
  if (body instanceof Uint8Array) payload = body;
  else if (body instanceof ReadableStream) payload = body;
  else payload = Readable.toWeb(Readable.from(body)) as ReadableStream<Uint8Array>;
  const init: RequestInit & { duplex?: 'half' } = {
    method: ticket.method,
    headers,
    body: payload,
    signal: options.signal,
  };
  // A stream body needs half-duplex in undici.
  if (!(body instanceof Uint8Array)) init.duplex = 'half';
  const response = await doFetch(ticket.upload_url, init);
  const text = await response.text();
  if (response.status !== 201) throw uploadFailure(response.status, response.status === 413 ? '' : text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw invalidResponse('the upload');
  }
  if (!isDataReference(parsed)) throw invalidResponse('the upload');
  return parsed;
}
