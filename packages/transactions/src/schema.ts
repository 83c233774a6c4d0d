/** The identifier, the wire version and one TypeBox schema per wire payload, with the JSON Schema document of them all. */
import Type, { type Static, type TSchema } from 'typebox';
import { extensionId } from '@ext/core';
import { StructuredErrorSchema } from '@ext/core/kit';

/** The identifier this package serves (SEP-2133): `io.github.mcp-ext/transactions`. */
export const TRANSACTIONS_ID = extensionId('transactions');

/** The npm package name, used by the core for dependencies and negotiation lookups. */
export const TRANSACTIONS_PACKAGE = '@ext/transactions';

/** Wire version of the contract in SPEC.md. */
export const TRANSACTIONS_WIRE_VERSION = '1.0';

/** The default inactivity timeout (seed `TransactionBegin.timeout_seconds`). */
export const DEFAULT_TIMEOUT_SECONDS = 300;

/**
 * Transaction and step ids become part of store keys and of compensation
 * idempotency keys, so they are held to the idempotency key alphabet.
 */
export const ID_PATTERN = '^[a-zA-Z0-9_\\-:.]{1,128}$';

const Id = Type.String({ pattern: ID_PATTERN });

/** Params of `<id>/begin` (seed `TransactionBegin`). */
export const BeginParams = Type.Object({
  transaction_id: Id,
  timeout_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  description: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type BeginParams = Static<typeof BeginParams>;

/** Params of `<id>/commit` (seed `TransactionCommit`). */
export const CommitParams = Type.Object({ transaction_id: Id });
export type CommitParams = Static<typeof CommitParams>;

/** Params of `<id>/rollback` (seed `TransactionRollback`). */
export const RollbackParams = Type.Object({
  transaction_id: Id,
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
});
export type RollbackParams = Static<typeof RollbackParams>;

/** Params of `<id>/status`. */
export const StatusParams = Type.Object({ transaction_id: Id });
export type StatusParams = Static<typeof StatusParams>;

/** `params._meta[<id>]` of a tool call that is a step of a transaction. */
export const StepRequestMeta = Type.Object({
  transaction_id: Id,
  step_id: Type.Optional(Id),
});
export type StepRequestMeta = Static<typeof StepRequestMeta>;

/** The structured error object (seed `error.json`), as the core defines it. */
export type StructuredErrorObject = Static<typeof StructuredErrorSchema>;

/** What the server will do on rollback (seed `TransactionStepResult.compensation`). */
export const CompensationInfo = Type.Object({
  description: Type.String(),
  tool: Type.Optional(Type.String()),
  parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type CompensationInfo = Static<typeof CompensationInfo>;

/** `result._meta[<id>]` of a step (seed `TransactionStepResult` plus `transaction_id`). */
export const StepResultMeta = Type.Object({
  transaction_id: Type.String(),
  step_id: Type.String(),
  status: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
  compensation: Type.Optional(CompensationInfo),
  error: Type.Optional(StructuredErrorSchema),
});
export type StepResultMeta = Static<typeof StepResultMeta>;

const TransactionStatusSchema = Type.Union([
  Type.Literal('active'),
  Type.Literal('rolling_back'),
  Type.Literal('committed'),
  Type.Literal('rolled_back'),
  Type.Literal('partially_rolled_back'),
]);

/** Result of `<id>/begin`. */
export const BeginResult = Type.Object({
  transaction_id: Type.String(),
  status: Type.Literal('active'),
  timeout_seconds: Type.Integer(),
  expires_at: Type.String({ format: 'date-time' }),
  description: Type.Optional(Type.String()),
});
export type BeginResult = Static<typeof BeginResult>;

/** Result of `<id>/commit`. */
export const CommitResult = Type.Object({
  transaction_id: Type.String(),
  status: Type.Literal('committed'),
  steps_committed: Type.Integer({ minimum: 0 }),
  committed_at: Type.String({ format: 'date-time' }),
});
export type CommitResult = Static<typeof CommitResult>;

/** One entry of `steps_compensated` (seed `TransactionRollbackResult`). */
export const CompensatedStep = Type.Object({
  step_id: Type.String(),
  status: Type.Union([Type.Literal('compensated'), Type.Literal('compensation_failed')]),
  tool: Type.String(),
  error: Type.Optional(StructuredErrorSchema),
});
export type CompensatedStep = Static<typeof CompensatedStep>;

/** Result of `<id>/rollback` (seed `TransactionRollbackResult`). */
export const RollbackResult = Type.Object({
  transaction_id: Type.String(),
  status: Type.Union([Type.Literal('rolled_back'), Type.Literal('partially_rolled_back')]),
  steps_compensated: Type.Array(CompensatedStep),
  trigger: Type.Union([Type.Literal('client'), Type.Literal('timeout'), Type.Literal('late_step')]),
  reason: Type.Optional(Type.String()),
});
export type RollbackResult = Static<typeof RollbackResult>;

/** One step as `<id>/status` shows it. */
export const StepView = Type.Object({
  step_id: Type.String(),
  tool: Type.String(),
  status: Type.Union([
    Type.Literal('running'),
    Type.Literal('applied'),
    Type.Literal('failed'),
    Type.Literal('compensating'),
    Type.Literal('compensated'),
    Type.Literal('compensation_failed'),
  ]),
  compensation: Type.Optional(CompensationInfo),
  error: Type.Optional(StructuredErrorSchema),
});
export type StepView = Static<typeof StepView>;

/** Result of `<id>/status`. */
export const StatusResult = Type.Object({
  transaction_id: Type.String(),
  status: TransactionStatusSchema,
  timeout_seconds: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
  last_activity_at: Type.String({ format: 'date-time' }),
  expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  description: Type.Optional(Type.String()),
  steps: Type.Array(StepView),
  steps_compensated: Type.Optional(Type.Array(CompensatedStep)),
});
export type StatusResult = Static<typeof StatusResult>;

/** What the server advertises in `capabilities.extensions[<id>]`. */
export const ServerSettings = Type.Object({
  version: Type.String(),
  default_timeout_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  max_timeout_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
  compensable_tools: Type.Optional(Type.Array(Type.String())),
});
export type ServerSettings = Static<typeof ServerSettings>;

/** What the client advertises: the version only. */
export const ClientSettings = Type.Object({ version: Type.String() });
export type ClientSettings = Static<typeof ClientSettings>;

/** `Tool._meta[<id>]` of a tool that can be a step: it has a server-side compensation. */
export const ToolTransactionMeta = Type.Object({
  compensable: Type.Literal(true),
  compensation: Type.String(),
});
export type ToolTransactionMeta = Static<typeof ToolTransactionMeta>;

/** Every wire shape of this package, by name, for documentation and conformance. */
export const schemas = {
  BeginParams,
  CommitParams,
  RollbackParams,
  StatusParams,
  StepRequestMeta,
  StepResultMeta,
  BeginResult,
  CommitResult,
  RollbackResult,
  StatusResult,
  ServerSettings,
  ClientSettings,
  ToolTransactionMeta,
} as const satisfies Record<string, TSchema>;

/** The JSON Schema 2020-12 document of every wire shape (also shipped as `schema.json`). */
export const transactionsJsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: `${TRANSACTIONS_PACKAGE} wire payloads (${TRANSACTIONS_ID}, version ${TRANSACTIONS_WIRE_VERSION})`,
  $defs: schemas,
} as const;
