/**
 * The protocol revisions the adapters speak, newest of each era, for the
 * places that name one: pinning a v2 client to the 2026-07-28 era, a server
 * card's supported versions.
 */
import type { ProtocolEra } from '../contract/types.js';

/**
 * The newest revision of each protocol era: `legacy` (`initialize` and, over
 * HTTP, a session; both SDK lines) and `modern` (no `initialize`; v2 only).
 * A v2 client lands on the modern era with
 * `versionNegotiation: { mode: { pin: PROTOCOL_VERSIONS.modern } }`.
 */
export const PROTOCOL_VERSIONS = { legacy: '2025-11-25', modern: '2026-07-28' } as const satisfies Record<
  ProtocolEra,
  string
>;
