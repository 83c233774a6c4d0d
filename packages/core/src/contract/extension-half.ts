/** What the server and client halves of an extension both declare: names, identifiers and settings. */
import type { TSchema } from 'typebox';

/** The settings one side advertises for an extension: always carries the wire version. */
export type AdvertisedSettings = { readonly version: string } & Readonly<Record<string, unknown>>;

export interface ExtensionHalf {
  /** npm package name, e.g. `@ext/errors`; used in messages and for dependencies. */
  readonly name: string;
  /**
   * Identifiers this half serves, e.g. `['io.github.mcp-ext/errors']`, or
   * both `errors` and `errors-v2` while a wire break is rolled out. The
   * newest one both sides advertise wins.
   */
  readonly ids: readonly string[];
  /**
   * Identifiers under a reserved prefix (CORE-3) that this half serves as
   * aliases of one of its own identifiers with the same extension name, e.g.
   * a draft official identifier (`io.modelcontextprotocol/content-negotiation`
   * beside `io.github.mcp-ext/content-negotiation`). Each must also be in
   * `ids`; composition accepts nothing else under a reserved prefix unless
   * the server author lists it in `allowReservedIds`.
   */
  readonly reservedAliases?: readonly string[] | undefined;
  /** What this side advertises in `capabilities.extensions[id]`. */
  readonly settings: AdvertisedSettings;
  /**
   * What this side advertises under one of its `reservedAliases` instead of
   * `settings`, when the official extension defines its settings otherwise
   * (the Tasks extension's are the empty object, and its clients refuse
   * anything else; CORE-5). Default: `settings`.
   */
  readonly aliasSettings?: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined;
  /** Schema of the settings the peer advertises (validated on receipt). */
  readonly peerSettings?: TSchema | undefined;
  /** Wire majors of the peer settings this half understands. Default: the major of `settings.version`. */
  readonly majors?: readonly number[] | undefined;
  /** Package names that must be composed too (e.g. transactions requires `@ext/idempotency`). */
  readonly requires?: readonly string[] | undefined;
}
