/**
 * The config's `pins` section, defined once: the TypeBox schema the config
 * schema embeds, the type derived from it, its default, and where the lock
 * file it names lives. Pure.
 */
import { dirname, resolve } from 'node:path';
import Type, { type Static } from 'typebox';

/** What the gateway does when an upstream tool's definition no longer matches its pin. */
export const ON_TOOL_CHANGE = ['block', 'warn', 'accept'] as const;
export type OnToolChange = (typeof ON_TOOL_CHANGE)[number];

/** Withholding is the default: a changed tool is the attack pinning defends against, so it waits for a person. */
export const DEFAULT_ON_TOOL_CHANGE: OnToolChange = 'block';

/** The lock file `mcp-ext-gateway lock` writes when neither `--out` nor `pins.lockFile` names one. */
export const DEFAULT_LOCK_FILE = 'gateway.lock.json';

export const PinsConfigSchema = Type.Object(
  {
    onToolChange: Type.Optional(
      Type.Union([Type.Literal('block'), Type.Literal('warn'), Type.Literal('accept')], {
        default: DEFAULT_ON_TOOL_CHANGE,
        description:
          'When an upstream changes a pinned tool (name, title, description, schemas, annotations): `block` withholds it until an operator runs `mcp-ext-gateway tools accept <tool>`, `warn` serves it and logs the change, `accept` serves it and pins the new definition.',
      }),
    ),
    lockFile: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'A lock file (relative to the config file) written by `mcp-ext-gateway lock` and committed: its pins replace the ones the gateway records in its store, and a tool it does not list counts as changed.',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'Pins',
    description:
      'Pinned tool definitions: each upstream tool is pinned the first time the gateway sees it (or by a lock file), and a later change to it is handled as `onToolChange` says.',
  },
);

/** The config's `pins` section. */
export type PinsConfig = Static<typeof PinsConfigSchema>;

/**
 * The absolute path of the lock file `pins` names, taken from the config
 * file's folder as manifest paths are; `undefined` when it names none.
 * An absolute `lockFile` is kept, so resolving twice is harmless.
 */
export function lockFilePath(pins: PinsConfig | undefined, configPath: string): string | undefined {
  return pins?.lockFile === undefined ? undefined : resolve(dirname(configPath), pins.lockFile);
}
