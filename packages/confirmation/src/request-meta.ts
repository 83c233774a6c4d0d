/** Reading the `params._meta` entry a client sends on a retry: a token, a grant, or a fault with its pointer. */
import { isRecord, jsonPointer } from '@ext/core/kit';
import { isTokenShaped } from './logic.js';

/**
 * What a call's `params._meta[id]` asks for (CONF-9a): redeem a token, draw
 * on a grant, or nothing valid, with the JSON Pointer of the fault inside
 * the entry (`/confirmation_token`) and why.
 */
export type RequestMetaReading =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'grant'; readonly grantId: string }
  | { readonly kind: 'invalid'; readonly path: string; readonly message: string };

const FIELDS = ['confirmation_token', 'grant_id'] as const;

function invalid(path: string, message: string): RequestMetaReading {
  return { kind: 'invalid', path, message };
}

/**
 * Reads an entry the client sent (never `undefined`: an absent entry means
 * "no token yet" and is not read). The entry is closed and holds exactly
 * one of `confirmation_token` or `grant_id`, each shaped as the server
 * issues them. An empty object, an unknown field, both fields, or a value
 * of the wrong type or shape is a buggy or hostile client: it is refused,
 * never taken as "no token" (which would start a new confirmation).
 */
export function readRequestMeta(raw: unknown): RequestMetaReading {
  if (!isRecord(raw)) return invalid('', 'must be an object holding confirmation_token or grant_id');
  const unknown = Object.keys(raw).find((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown !== undefined)
    return invalid(jsonPointer(unknown), 'is not a field of this entry (only confirmation_token or grant_id)');
  const { confirmation_token: token, grant_id: grantId } = raw;
  if (token === undefined && grantId === undefined) {
    return invalid(
      '/confirmation_token',
      'is required: send the token the server issued, or leave the whole entry out to be asked again',
    );
  }
  if (token !== undefined && grantId !== undefined)
    return invalid('/grant_id', 'cannot be sent with confirmation_token: send one of them');
  if (token !== undefined) {
    return isTokenShaped(token)
      ? { kind: 'token', token }
      : invalid('/confirmation_token', 'must be the 43-character token the server issued');
  }
  return isTokenShaped(grantId)
    ? { kind: 'grant', grantId }
    : invalid('/grant_id', 'must be the 43-character grant id the server issued');
}
