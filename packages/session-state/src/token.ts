/**
 * The sealed token: AES-256-GCM over the state, with the format version,
 * the key id and the expiry in clear but authenticated, and the server name
 * and the caller bound in as associated data (never carried). Plain
 * functions over bytes; nothing here touches the network or the store.
 *
 * Layout, then unpadded base64url:
 *
 *   version (1 byte, = 1) | key id length L (1 byte) | key id (L bytes, ASCII)
 *   | expires_at (8 bytes, ms since the epoch, big endian) | IV (12 bytes)
 *   | ciphertext | GCM tag (16 bytes)
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigurationError } from '@ext/core';
import { SESSION_STATE_ID } from './schema.js';

/** The first byte of every token this version seals. */
export const TOKEN_FORMAT_VERSION = 1;

/** What a key id may look like: it travels in clear inside every token. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Shortest secret accepted, in bytes: AES-256 wants 256 bits of key material. */
export const MIN_SECRET_BYTES = 32;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const EXPIRY_BYTES = 8;
const TOKEN_ALPHABET = /^[A-Za-z0-9_-]+$/;

/** One key as the server author configures it. */
export interface SessionKey {
  /** Short public name of the key, written into every token it seals (`[A-Za-z0-9._-]{1,64}`). */
  readonly id: string;
  /** At least 32 bytes of secret material (a string is read as UTF-8), e.g. `openssl rand -base64 32`. */
  readonly secret: string | Uint8Array;
}

/** The derived keys: the first one seals, every one opens. */
export interface KeyRing {
  readonly sealingKeyId: string;
  readonly keys: ReadonlyMap<string, Buffer>;
}

/** What a token is bound to without carrying it: a token opens only for the same pair. */
export interface TokenBinding {
  /** The server's configured name (`''` when none). */
  readonly serverName: string;
  /** The caller the token was minted for (by default the core's principal). */
  readonly subject: string;
}

/** Why a token did not open, from the cheapest check to the last. */
export const TOKEN_FAILURE_REASONS = [
  'malformed',
  'too_large',
  'unsupported_version',
  'unknown_key',
  'not_authentic',
  'expired',
] as const;
export type TokenFailureReason = (typeof TOKEN_FAILURE_REASONS)[number];

export type OpenResult =
  | { readonly ok: true; readonly plaintext: string; readonly keyId: string; readonly expiresAt: number }
  | { readonly ok: false; readonly reason: TokenFailureReason };

/** The clear header of a token, read without a key (nothing in it is trustworthy until the token opens). */
export interface TokenHeader {
  readonly version: number;
  readonly keyId: string;
  readonly expiresAt: number;
}

function secretBytes(secret: unknown, where: string, index: number): Buffer {
  let bytes: Buffer;
  if (typeof secret === 'string') bytes = Buffer.from(secret, 'utf8');
  else if (secret instanceof Uint8Array) bytes = Buffer.from(secret);
  else
    throw new ConfigurationError('INVALID_OPTION', `${where}: keys[${index}].secret must be a string or a Uint8Array`);
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: keys[${index}].secret must hold at least ${MIN_SECRET_BYTES} bytes, got ${bytes.length} (generate one with: openssl rand -base64 32)`,
    );
  }
  return bytes;
}

/**
 * Derives one AES-256 key per configured key (HKDF-SHA256, with the key id
 * and this extension in the info string, so a secret reused elsewhere
 * yields an unrelated key). Throws a `ConfigurationError` naming the option.
 */
export function createKeyRing(keys: unknown, where = 'sessionStateServer'): KeyRing {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      `${where}: keys must be a non-empty array of { id, secret }; the first one seals`,
    );
  }
  const derived = new Map<string, Buffer>();
  keys.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) {
      throw new ConfigurationError('INVALID_OPTION', `${where}: keys[${index}] must be an object { id, secret }`);
    }
    const { id, secret } = entry as Record<string, unknown>;
    if (typeof id !== 'string' || !KEY_ID_PATTERN.test(id)) {
      throw new ConfigurationError(
        'INVALID_OPTION',
        `${where}: keys[${index}].id must be 1 to 64 characters from [A-Za-z0-9._-]`,
      );
    }
    if (derived.has(id))
      throw new ConfigurationError('INVALID_OPTION', `${where}: keys[${index}].id "${id}" is listed twice`);
    const material = secretBytes(secret, where, index);
    const info = `${SESSION_STATE_ID} token v${TOKEN_FORMAT_VERSION} key ${id}`;
    derived.set(id, Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), info, 32)));
  });
  const first = (keys[0] as { id: string }).id;
  return { sealingKeyId: first, keys: derived };
}

function base64urlLength(bytes: number): number {
  const rest = bytes % 3;
  return Math.floor(bytes / 3) * 4 + (rest === 0 ? 0 : rest + 1);
}

/** Length in characters (= bytes) of the token that sealing `plaintextBytes` under `keyId` yields. */
export function sealedLength(keyId: string, plaintextBytes: number): number {
  return base64urlLength(2 + keyId.length + EXPIRY_BYTES + IV_BYTES + plaintextBytes + TAG_BYTES);
}

function header(keyId: string, expiresAt: number): Buffer {
  const out = Buffer.alloc(2 + keyId.length + EXPIRY_BYTES);
  out.writeUInt8(TOKEN_FORMAT_VERSION, 0);
  out.writeUInt8(keyId.length, 1);
  out.write(keyId, 2, 'ascii');
  out.writeBigUInt64BE(BigInt(expiresAt), 2 + keyId.length);
  return out;
}

function associatedData(head: Buffer, binding: TokenBinding): Buffer {
  // A JSON array cannot be confused across fields, whatever the strings hold.
  return Buffer.concat([
    head,
    Buffer.from(JSON.stringify([SESSION_STATE_ID, binding.serverName, binding.subject]), 'utf8'),
  ]);
}

/**
 * Seals `plaintext` (the state's JSON) with the ring's first key, to expire
 * at `expiresAt` (ms since the epoch), bound to `binding`.
 */
export function sealToken(ring: KeyRing, plaintext: string, expiresAt: number, binding: TokenBinding): string {
  if (!Number.isSafeInteger(expiresAt) || expiresAt < 0)
    throw new RangeError('sealToken: expiresAt must be a non-negative safe integer');
  const key = ring.keys.get(ring.sealingKeyId);
  if (key === undefined) throw new RangeError(`sealToken: the key ring has no key "${ring.sealingKeyId}"`);
  const head = header(ring.sealingKeyId, expiresAt);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(head, binding));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([head, iv, body, cipher.getAuthTag()]).toString('base64url');
}

/** Decodes strict, canonical, unpadded base64url; `undefined` for anything else. */
function decodeCanonical(token: string): Buffer | undefined {
  if (!TOKEN_ALPHABET.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // Node ignores stray trailing bits; a token that does not re-encode to itself was altered.
  return bytes.toString('base64url') === token ? bytes : undefined;
}

interface Parsed {
  readonly version: number;
  readonly keyId: string;
  readonly expiresAt: number;
  readonly headLength: number;
}

function parseHeader(bytes: Buffer): Parsed | 'malformed' | 'unsupported_version' {
  if (bytes.length < 1) return 'malformed';
  const version = bytes.readUInt8(0);
  if (version !== TOKEN_FORMAT_VERSION) return 'unsupported_version';
  if (bytes.length < 2) return 'malformed';
  const idLength = bytes.readUInt8(1);
  const headLength = 2 + idLength + EXPIRY_BYTES;
  if (idLength === 0 || bytes.length < headLength + IV_BYTES + TAG_BYTES) return 'malformed';
  const keyId = bytes.toString('latin1', 2, 2 + idLength);
  if (!KEY_ID_PATTERN.test(keyId)) return 'malformed';
  const expiry = bytes.readBigUInt64BE(2 + idLength);
  if (expiry > BigInt(Number.MAX_SAFE_INTEGER)) return 'malformed';
  return { version, keyId, expiresAt: Number(expiry), headLength };
}

/**
 * Reads the clear header of a token without opening it (for logs and
 * tests). `undefined` when the token is not even shaped like one. Never throws.
 */
export function inspectToken(token: unknown): TokenHeader | undefined {
  if (typeof token !== 'string') return undefined;
  const bytes = decodeCanonical(token);
  if (bytes === undefined) return undefined;
  const parsed = parseHeader(bytes);
  return typeof parsed === 'string'
    ? undefined
    : { version: parsed.version, keyId: parsed.keyId, expiresAt: parsed.expiresAt };
}

export interface OpenOptions {
  /** The current time, ms since the epoch. */
  readonly now: number;
  /** Longer tokens are refused before any decoding. */
  readonly maxTokenBytes: number;
}

/**
 * Opens a token: checks size, encoding, version and key id, authenticates
 * header, binding and ciphertext together, then the expiry. Returns the
 * plaintext only when every check passed; never throws, whatever `token` is.
 */
export function openToken(ring: KeyRing, token: unknown, binding: TokenBinding, options: OpenOptions): OpenResult {
  if (typeof token !== 'string' || token.length === 0) return { ok: false, reason: 'malformed' };
  if (token.length > options.maxTokenBytes) return { ok: false, reason: 'too_large' };
  const bytes = decodeCanonical(token);
  if (bytes === undefined) return { ok: false, reason: 'malformed' };
  const parsed = parseHeader(bytes);
  if (typeof parsed === 'string') return { ok: false, reason: parsed };
  const key = ring.keys.get(parsed.keyId);
  if (key === undefined) return { ok: false, reason: 'unknown_key' };
  const head = bytes.subarray(0, parsed.headLength);
  const iv = bytes.subarray(parsed.headLength, parsed.headLength + IV_BYTES);
  const body = bytes.subarray(parsed.headLength + IV_BYTES, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData(head, binding));
  decipher.setAuthTag(tag);
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    // `final` throws exactly when the tag does not verify; what was decrypted so far is discarded.
    return { ok: false, reason: 'not_authentic' };
  }
  // Checked after authentication, so only a genuine token is reported as expired.
  if (parsed.expiresAt <= options.now) return { ok: false, reason: 'expired' };
  return { ok: true, plaintext: plain.toString('utf8'), keyId: parsed.keyId, expiresAt: parsed.expiresAt };
}
