/**
 * Resources an extension serves through MCP's `resources/read`, beside the
 * application's own: what a server half declares, and the routing both SDK
 * adapters share (an extension's URIs to that extension, every other URI to
 * the application's handlers; core SPEC, CORE-38).
 */
import type { ComposedServer, ExtensionResources, RequestContext } from '../contract/extension.js';
import { asRecord } from '../kit/records.js';
import { perObject } from './server-adapter.js';

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
