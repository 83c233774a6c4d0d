/** The schema of a policy entry: what applies to the tools a policy key matches (`policy.<glob>`). */
import Type from 'typebox';
import { TOOL_NAME_PATTERN, SCOPE_PATTERN } from './patterns.js';
import { RetryPolicySchema } from './resilience-schema.js';

const positiveInteger = (description: string) =>
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });

/** A CEL expression (https://cel.dev), compiled and type-checked when the config loads. */
const Condition = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

/** A person confirms a call before it runs. */
export const ConfirmPolicySchema = Type.Union(
  [
    Type.Boolean(),
    Type.Object(
      {
        message: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 2000,
            description: 'Shown to the person; `{param}` is replaced by that argument.',
          }),
        ),
        risk: Type.Optional(
          Type.Union([Type.Literal('safe'), Type.Literal('reversible'), Type.Literal('destructive')], {
            default: 'destructive',
            description: 'Risk level shown with the question.',
          }),
        ),
        approver: Type.Optional(
          Type.Union([Type.Literal('user'), Type.Literal('operator'), Type.Literal('either')], {
            default: 'user',
            description:
              'Who approves: `user` through the client (a token or an in-band question), `operator` out of band (the approvals page, webhooks, the CLI; needs `approvals`), `either` in-band when the client can ask, else out of band.',
          }),
        ),
        when: Type.Optional(
          Condition(
            'Ask only when this CEL expression over `args`, `principal`, `scopes`, `roles` and `claims` is true, e.g. `!args.path.startsWith("docs/")`.',
          ),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: '`true`, `false`, or `{ message, risk, approver, when }`.' },
);

export const CostPolicySchema = Type.Object(
  {
    units: Type.Optional(
      Type.Union([Type.Number({ minimum: 0 }), Condition('A CEL expression over the call, e.g. `args.amount`.')], {
        default: 1,
        description:
          'Units a call costs: a number, or a CEL expression read from the arguments (`args.amount`), so a quota caps spend.',
      }),
    ),
    unit: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'What a unit is called, e.g. `writes`.' }),
    ),
    category: Type.Optional(
      Type.Union([Type.Literal('free'), Type.Literal('metered'), Type.Literal('requires_approval')], {
        default: 'metered',
        description: '`requires_approval` asks a person before each call.',
      }),
    ),
    latency: Type.Optional(
      Type.Union([Type.Literal('instant'), Type.Literal('seconds'), Type.Literal('minutes')], {
        description: 'How long a call is expected to take, told to clients.',
      }),
    ),
    quota: Type.Optional(
      Type.Object(
        {
          limit: positiveInteger('Units allowed.'),
          windowSeconds: Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'The window, in seconds.' }),
          window: Type.Optional(
            Type.Union([Type.Literal('sliding'), Type.Literal('fixed')], {
              default: 'sliding',
              description:
                '`sliding`: no span of `windowSeconds` admits more than `limit`, wherever it starts; `fixed`: windows aligned to the clock (a day resets at 00:00 UTC), which admit up to twice the limit across a boundary.',
            }),
          ),
        },
        { additionalProperties: false, description: 'At most `limit` units per caller in each window.' },
      ),
    ),
    rateLimit: Type.Optional(
      Type.Object(
        {
          perMinute: Type.Optional(positiveInteger('Calls allowed per minute.')),
          perHour: Type.Optional(positiveInteger('Calls allowed per hour.')),
          perDay: Type.Optional(positiveInteger('Calls allowed per day.')),
        },
        { additionalProperties: false, description: 'Calls per caller in fixed windows.' },
      ),
    ),
  },
  { additionalProperties: false, title: 'CostPolicy', description: 'What a call costs, and the limits on calls.' },
);

export const IntentRuleSchema = Type.Object(
  {
    keywords: Type.Optional(
      Type.Array(Type.String({ pattern: '\\S' }), {
        minItems: 1,
        description: 'Words or phrases; any one of them in the intent matches (whole words, any case).',
      }),
    ),
    pattern: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'A JavaScript regular expression over the stated intent, matched ignoring case (flags `iu`).',
      }),
    ),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Why, shown to the client.' })),
    from: Type.Optional(
      Type.Array(Type.String({ pattern: TOOL_NAME_PATTERN }), { description: 'Only for calls of these tools.' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'IntentRule',
    description: 'Recommend this tool when a call states such an intent; a rule needs `keywords` or a `pattern`.',
  },
);

/**
 * Undoing a completed step of a saga: call `tool` with `arguments`, whose
 * string values may name the step's arguments or result (`$args.path`,
 * `$result.structuredContent.id`, `[*]` over arrays); other values are taken
 * as they are.
 */
export const CompensationSchema = Type.Object(
  {
    tool: Type.String({ pattern: TOOL_NAME_PATTERN, description: 'The upstream tool that undoes this one.' }),
    arguments: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Its arguments; `$args...` and `$result...` strings are read from the completed step (`$$` starts a literal `$`).',
    }),
  },
  {
    additionalProperties: false,
    title: 'Compensation',
    description: 'How to undo a completed call when a later step of its saga fails.',
  },
);

/** What applies to the tools a policy key matches. */
/** Tool annotations an operator asserts over the upstream's (field by field); the defaults read the result. */
export const ToolAnnotationsSchema = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'A human-readable title.' })),
    readOnlyHint: Type.Optional(Type.Boolean({ description: 'The tool changes nothing.' })),
    destructiveHint: Type.Optional(Type.Boolean({ description: 'The tool may destroy data (a person confirms).' })),
    idempotentHint: Type.Optional(Type.Boolean({ description: 'Repeating a call changes nothing more.' })),
    openWorldHint: Type.Optional(Type.Boolean({ description: 'The tool reaches outside systems.' })),
  },
  {
    additionalProperties: false,
    title: 'ToolAnnotations',
    description: 'Overrides the upstream’s annotations, field by field.',
  },
);

export const ToolPolicySchema = Type.Object(
  {
    allow: Type.Optional(
      Condition(
        'Who may use the tool: a CEL expression over `principal`, `scopes`, `roles`, `claims`, `tool` and `args`, e.g. `"admin" in roles`. Others do not see it listed, and a call is refused naming this rule.',
      ),
    ),
    confirm: Type.Optional(ConfirmPolicySchema),
    scopes: Type.Optional(
      Type.Array(Type.String({ pattern: SCOPE_PATTERN }), { description: 'Scopes a caller needs.' }),
    ),
    cost: Type.Optional(CostPolicySchema),
    idempotent: Type.Optional(
      Type.Boolean({ description: 'Honour idempotency keys (default: every tool not marked read-only).' }),
    ),
    retry: Type.Optional(RetryPolicySchema),
    intent: Type.Optional(Type.Array(IntentRuleSchema, { description: 'Intent routing rules for this tool.' })),
    provenance: Type.Optional(
      Type.Object(
        { source: Type.String({ minLength: 1, maxLength: 256, description: 'Cited as the source of every result.' }) },
        { additionalProperties: false, description: 'Provenance attached to every result.' },
      ),
    ),
    multimodal: Type.Optional(
      Type.Object(
        {
          maxInputBytes: Type.Optional(positiveInteger('Largest media input, in bytes.')),
          mimeTypes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Media types accepted.' })),
        },
        { additionalProperties: false, description: 'Limits on media passed to the tool.' },
      ),
    ),
    compensate: Type.Optional(CompensationSchema),
    hidden: Type.Optional(
      Type.Boolean({ default: false, description: '`true` leaves the tool out of the gateway entirely.' }),
    ),
    as: Type.Optional(
      Type.String({
        pattern: TOOL_NAME_PATTERN,
        description:
          'The name clients call the tool by, instead of the upstream’s (or `<upstream>__<tool>`). Entries still match the upstream’s names.',
      }),
    ),
    description: Type.Optional(
      Type.String({ minLength: 1, maxLength: 10_000, description: 'Replaces the upstream’s description of the tool.' }),
    ),
    annotations: Type.Optional(ToolAnnotationsSchema),
  },
  { additionalProperties: false, title: 'ToolPolicy' },
);
