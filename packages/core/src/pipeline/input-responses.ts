/**
 * `params.inputResponses` on a 2026-07-28 request (SEP-2322) must be an
 * object. The v2 SDK lifts it out of the params before any handler runs and
 * turns a value that is not an object into an empty map, so `"x"`, `null`
 * or `[1]` would reach a handler as "no answers". The HTTP handler checks
 * it while the body is still as the client sent it, and answers -32602
 * naming the field (core SPEC, CORE-46).
 */
import { toWireError } from '../contract/errors.js';
import { invalidInputError } from '../kit/input.js';
import { isRecord } from '../kit/records.js';

/** What is wrong with a request's `params.inputResponses`, or `undefined` when nothing is. */
export function inputResponsesFault(body: unknown): { readonly id: unknown; readonly message: string } | undefined {
  if (!isRecord(body) || typeof body.method !== 'string' || !('id' in body)) return undefined;
  const params = body.params;
  if (!isRecord(params) || !('inputResponses' in params)) return undefined;
  const value = params.inputResponses;
  if (isRecord(value)) return undefined;
  const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
  return { id: body.id, message: `${body.method}: params.inputResponses must be an object, got ${got}` };
}

/** The JSON-RPC answer refusing `body` for its `inputResponses`, or `undefined` when they are well formed. */
export function refuseInputResponses(body: unknown): Response | undefined {
  const fault = inputResponsesFault(body);
  if (fault === undefined) return undefined;
  const error = toWireError(
    invalidInputError(
      { field: 'inputResponses', pointer: '/inputResponses', message: fault.message },
      'Send inputResponses as an object mapping each input request key to its result.',
    ),
  );
  const { code, message, data } = error;
  return Response.json({ jsonrpc: '2.0', id: fault.id, error: { code, message, data } }, { status: 200 });
}
