/**
 * The JSON Schemas of the seed proposals, which every payload with a seed
 * shape must validate against. The schema files are
 * unmodified copies from davioe/mcp-extension-proposals, commit
 * 5a9142e5027cb23f8dcb079756c1cbeb7a69c71e, folder `schemas/`, licensed
 * CC BY 4.0 (see `seed-schemas/SOURCE.md`).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import conformance from './seed-schemas/conformance.schema.json' with { type: 'json' };
import dataReferences from './seed-schemas/data-references.schema.json' with { type: 'json' };
import error from './seed-schemas/error.schema.json' with { type: 'json' };
import permissions from './seed-schemas/permissions.schema.json' with { type: 'json' };
import provenance from './seed-schemas/provenance.schema.json' with { type: 'json' };
import serviceManifest from './seed-schemas/service-manifest.schema.json' with { type: 'json' };
import sessionState from './seed-schemas/session-state.schema.json' with { type: 'json' };
import streaming from './seed-schemas/streaming.schema.json' with { type: 'json' };
import subscribeNotify from './seed-schemas/subscribe-notify.schema.json' with { type: 'json' };
import transactions from './seed-schemas/transactions.schema.json' with { type: 'json' };

/** The seed schemas by file name (without `.schema.json`). */
export const SEED_SCHEMAS = {
  conformance,
  'data-references': dataReferences,
  error,
  permissions,
  provenance,
  'service-manifest': serviceManifest,
  'session-state': sessionState,
  streaming,
  'subscribe-notify': subscribeNotify,
  transactions,
} as const;

export type SeedSchemaName = keyof typeof SEED_SCHEMAS;

export type SeedCheck = (value: unknown) => { valid: boolean; errors: string };

export interface SeedValidators {
  /** A check against a whole seed schema, or one of its `$defs` (e.g. `('transactions', 'TransactionBegin')`). */
  check(name: SeedSchemaName, definition?: string): SeedCheck;
}

// ajv-formats is CommonJS: under NodeNext its plugin is the `default` property of the module object.
const addFormats = ajvFormats.default;

/**
 * Ajv (JSON Schema 2020-12, formats checked) with every seed schema
 * registered by `$id`, so cross-schema references (`error.json`) resolve.
 */
export function seedValidators(): SeedValidators {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  for (const schema of Object.values(SEED_SCHEMAS)) ajv.addSchema(schema);
  return {
    check(name, definition) {
      const id = SEED_SCHEMAS[name].$id;
      const validate = ajv.getSchema(definition === undefined ? id : `${id}#/$defs/${definition}`);
      if (!validate)
        throw new RangeError(
          `seed schema ${name}${definition === undefined ? '' : ` has no definition ${definition}`}`,
        );
      return (value) => {
        const valid = validate(value) as boolean;
        return { valid, errors: valid ? '' : ajv.errorsText(validate.errors) };
      };
    },
  };
}
