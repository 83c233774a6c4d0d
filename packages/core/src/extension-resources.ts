/**
 * Resources an extension serves through MCP's `resources/read`, beside the
 * application's own: what a server half declares, and the routing both SDK
 * adapters share (an extension's URIs to that extension, every other URI to
 * the application's handlers; core SPEC, CORE-38).
 */
import type { ComposedServer, RequestContext } from './extension.js';
import { asRecord } from './kit/records.js';
import { perObject } from './server-adapter.js';

/** One resource's contents as `resources/read` answers them: UTF-8 text, or the bytes in base64. */
export type ResourceContents =
  | {
      readonly uri: string;
      readonly mimeType?: string | undefined;
      readonly text: string;
      readonly _meta?: Readonly<Record<string, unknown>> | undefined;
    }
  | {
      readonly uri: string;
      readonly mimeType?: string | undefined;
      readonly blob: string;
      readonly _meta?: Readonly<Record<string, unknown>> | undefined;
    };

/** The answer to `resources/read`, MCP-shaped. */
export interface ResourceReadResult {
  readonly contents: readonly ResourceContents[];
  readonly _meta?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The resources a server half answers `resources/read` for. Composing a half
 * that has them makes the server advertise the `resources` capability. They
 * are not listed by `resources/list`, which stays the application's.
 */
export interface ExtensionResources {
  /**
   * Whether `uri` is one of this half's: it is then read by {@link read} and
   * never reaches the application's handlers. Synchronous and cheap; it runs
   * for every `resources/read`.
   */
  owns(uri: string): boolean;
  /**
   * Reads one of its URIs for the caller of `ctx`. Throw a `WireError` or an
   * `ExtensionError` to refuse (it travels as the JSON-RPC error).
   */
  read(uri: string, ctx: RequestContext): Promise<ResourceReadResult>;
}

/** The composed halves' resources, as an adapter routes `resources/read` to them. */
export interface ResourceRouter {
  /** The half that owns the request's `params.uri`, or `undefined` (the application's handlers answer). */
  ownerOf(params: unknown): ExtensionResources | undefined;
  /** Reads through the owner as an extension method runs: caller check first, traced, internal errors logged. */
  read(owner: ExtensionResources, params: unknown, ctx: RequestContext): Promise<Record<string, unknown>>;
}

function uriOf(params: unknown): string | undefined {
  const uri = asRecord(params)?.uri;
  return typeof uri === 'string' ? uri : undefined;
}

/**
 * The router of a composition, or `undefined` when no composed half serves
 * resources (the adapter then leaves `resources/*` alone). Made once per
 * composition: the 2026-07-28 era builds a server per request.
 */
export const resourceRouter = perObject((composed: ComposedServer): ResourceRouter | undefined => {
  const owners = composed.extensions.flatMap((half) => (half.resources === undefined ? [] : [half.resources]));
  if (owners.length === 0) return undefined;
  return {
    ownerOf(params) {
      const uri = uriOf(params);
      // The first half in composition order that claims a URI answers it.
      return uri === undefined ? undefined : owners.find((owner) => owner.owns(uri));
    },
    read(owner, params, ctx) {
      const record = { ...asRecord(params) };
      return composed.runMethod('resources/read', record, ctx, async () => ({
        ...(await owner.read(uriOf(params) ?? '', ctx)),
      }));
    },
  };
});
