/**
 * The gateway's configuration, defined once: the TypeBox schema the loader
 * validates with, the TypeScript types derived from it, and the JSON Schema
 * document published beside the package (`gateway.schema.json`).
 */
import Type, { type Static } from 'typebox';
import { PinsConfigSchema } from '../pins/pins-config.js';

/** Where the JSON Schema document is identified. */
export const CONFIG_SCHEMA_ID = 'https://mcp-ext.github.io/schemas/gateway/1.0/gateway.schema.json';

/** Upstream names: `__` is left out because it joins an upstream's name to its tools' (`<name>__<tool>`). */
export const UPSTREAM_NAME_PATTERN = '^(?!.*__)[A-Za-z0-9_-]{1,64}$';
/** Policy keys: tool-name characters, with `*` (any run) and `?` (one character) as wildcards. */
export const TOOL_GLOB_PATTERN = '^[A-Za-z0-9_./*?-]{1,128}$';
/** One tool's name, as MCP allows it (no wildcards). */
export const TOOL_NAME_PATTERN = '^[A-Za-z0-9_./-]{1,128}$';
/** A permission scope. */
export const SCOPE_PATTERN = '^[A-Za-z0-9:._-]{1,64}$';
/** An environment variable's name. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';
/** An HTTP header's name (an RFC 9110 token). */
export const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$";
/** A `Host` header the gateway answers: a name or bracketed IPv6 address, optionally with a port. */
export const ALLOWED_HOST_PATTERN = '^(?:[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?$';
/** A web page's origin: scheme, host and optional port, no path. */
export const ALLOWED_ORIGIN_PATTERN = '^https?://(?:[A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]{1,5})?$';
/** A claim name, or a dotted path into nested claims. */
export const CLAIM_PATH_PATTERN = '^[A-Za-z0-9_:-]{1,64}(?:\\.[A-Za-z0-9_:-]{1,64}){0,7}$';
/** A JWS algorithm with a public key: never `none` nor an HMAC one. */
export const ASYMMETRIC_ALGORITHM_PATTERN = '^(?:(?:RS|PS|ES)(?:256|384|512)|ES256K|EdDSA|Ed25519)$';
/** A bearer API key: at least 16 characters, no white space. */
export const API_KEY_PATTERN = '^\\S{16,}$';
/** A redaction detector's id, as its marker shows it (`[REDACTED:<id>]`). */
export const DETECTOR_ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,63}$';

/** What each pattern above allows, said for a person (error messages and the reference use it). */
export const PATTERN_NAMES: Readonly<Record<string, string>> = {
  [UPSTREAM_NAME_PATTERN]: '1 to 64 letters, digits, `_` or `-`, without `__`',
  [TOOL_GLOB_PATTERN]: '1 to 128 letters, digits, `_`, `-`, `.`, `/`, and the wildcards `*` and `?`',
  [TOOL_NAME_PATTERN]: 'a tool name: 1 to 128 letters, digits, `_`, `-`, `.` or `/`',
  [SCOPE_PATTERN]: 'a scope: 1 to 64 letters, digits, `:`, `.`, `_` or `-`',
  [ENV_NAME_PATTERN]: 'an environment variable name: letters, digits and `_`, not starting with a digit',
  [HEADER_NAME_PATTERN]: 'an HTTP header name',
  [API_KEY_PATTERN]: 'at least 16 characters without white space',
  [DETECTOR_ID_PATTERN]: '1 to 64 lower-case letters, digits or `-`, not starting with `-`',
  [CLAIM_PATH_PATTERN]: 'a claim name or a dotted path such as `realm_access.roles`',
  [ASYMMETRIC_ALGORITHM_PATTERN]: 'an asymmetric JWS algorithm (RS256, PS256, ES256, EdDSA, ...; never none or HS*)',
  [ALLOWED_HOST_PATTERN]: 'a host name or `[IPv6]` address, optionally with `:port`',
  [ALLOWED_ORIGIN_PATTERN]: 'an origin such as `https://app.example.com` (scheme, host, optional port; no path)',
  '^https?://': 'an `http://` or `https://` URL',
  '^rediss?://': 'a `redis://` or `rediss://` URL',
  '^/': 'a path starting with `/`',
  '\\S': 'a string that is not blank',
};

/** Longest timer Node.js keeps (a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;

const Name = Type.String({ pattern: UPSTREAM_NAME_PATTERN });
const positiveInteger = (description: string) =>
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description });
const TimeoutMs = Type.Integer({
  minimum: 1,
  maximum: MAX_TIMEOUT_MS,
  default: 30_000,
  description: 'How long a call may take, in milliseconds, before it is a transient error.',
});

/** An upstream started as a child process and spoken to over stdio. */
export const StdioUpstreamSchema = Type.Object(
  {
    command: Type.String({ minLength: 1, description: 'The program to start, e.g. `npx` or `node`.' }),
    args: Type.Optional(Type.Array(Type.String(), { description: 'Its arguments.' })),
    env: Type.Optional(
      Type.Record(Type.String({ pattern: ENV_NAME_PATTERN }), Type.String(), {
        additionalProperties: false,
        description: 'Environment variables added to the gateway’s own (PATH and HOME are passed on).',
      }),
    ),
    cwd: Type.Optional(Type.String({ minLength: 1, description: 'Working directory of the child.' })),
    timeoutMs: Type.Optional(TimeoutMs),
  },
  { additionalProperties: false, title: 'StdioUpstream' },
);

/** An upstream reached over Streamable HTTP. */
export const HttpUpstreamSchema = Type.Object(
  {
    url: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: 'The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`.',
    }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: HEADER_NAME_PATTERN }), Type.String(), {
        additionalProperties: false,
        description: 'Headers sent with every request (credentials).',
      }),
    ),
    protocol: Type.Optional(
      Type.Union([Type.Literal('auto'), Type.Literal('2026-07-28'), Type.Literal('2025-11-25')], {
        default: 'auto',
        description: 'The protocol era to speak: `auto` lets the SDK negotiate.',
      }),
    ),
    timeoutMs: Type.Optional(TimeoutMs),
  },
  { additionalProperties: false, title: 'HttpUpstream' },
);

export const UpstreamSchema = Type.Union([StdioUpstreamSchema, HttpUpstreamSchema], {
  title: 'Upstream',
  description: 'An MCP server behind the gateway: a `command` (stdio) or a `url` (Streamable HTTP).',
});

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
        when: Type.Optional(
          Condition(
            'Ask only when this CEL expression over `args`, `principal`, `scopes`, `roles` and `claims` is true, e.g. `!args.path.startsWith("docs/")`.',
          ),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: '`true`, `false`, or `{ message, risk }`.' },
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
  },
  { additionalProperties: false, title: 'ToolPolicy' },
);

export const StoreSchema = Type.Union(
  [
    Type.Literal('memory'),
    Type.Object(
      { sqlite: Type.String({ minLength: 1, description: 'Path of the SQLite file, relative to the config file.' }) },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        redis: Type.String({ pattern: '^rediss?://', description: 'Redis URL, shared by every gateway instance.' }),
        commandTimeoutMs: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: MAX_TIMEOUT_MS,
            default: 500,
            description: 'How long one Redis command may take, in milliseconds, before the call is a transient error.',
          }),
        ),
        keyPrefix: Type.Optional(
          Type.String({
            minLength: 1,
            maxLength: 128,
            default: 'mcp-ext:',
            description:
              'Prepended to every Redis key: give each gateway deployment sharing a Redis its own, so one never replays or counts against another’s state.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  {
    default: { sqlite: 'gateway.db' },
    description: 'Where state lives: `{ sqlite: path }`, `{ redis: url }`, or `memory`.',
  },
);

export const ListenSchema = Type.Object(
  {
    port: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 65_535, default: 8080, description: 'TCP port (`0` picks a free one).' }),
    ),
    host: Type.Optional(Type.String({ minLength: 1, default: '127.0.0.1', description: 'Interface to listen on.' })),
    path: Type.Optional(Type.String({ pattern: '^/', default: '/mcp', description: 'Path of the MCP endpoint.' })),
    allowedHosts: Type.Optional(
      Type.Array(Type.String({ pattern: ALLOWED_HOST_PATTERN }), {
        description:
          'The `Host` names served (`name` on any port, or `name:port`); others get 403. Default: on loopback, `localhost`, `127.0.0.1` and `[::1]` at the port; elsewhere any.',
      }),
    ),
    allowedOrigins: Type.Optional(
      Type.Array(Type.String({ pattern: ALLOWED_ORIGIN_PATTERN }), {
        description:
          'Web pages allowed to call beside the gateway’s own origin; any other `Origin` (and `null`) gets 403.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Serve Streamable HTTP (the CLI serves stdio with `--stdio`).' },
);

/** Who an API key identifies: a principal, or a principal and the scopes the key grants. */
export const ApiKeyCallerSchema = Type.Union(
  [
    Type.String({ minLength: 1, description: 'The principal.' }),
    Type.Object(
      {
        principal: Type.String({ minLength: 1, description: 'The principal.' }),
        scopes: Type.Optional(
          Type.Array(Type.String({ pattern: SCOPE_PATTERN }), {
            description: 'Scopes the key grants, as an OAuth token would: the `scopes` a policy requires.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ],
  { description: 'A principal, or `{ principal, scopes }`.' },
);

const ClaimPath = (description: string) => Type.String({ pattern: CLAIM_PATH_PATTERN, description });

/** A resource server's own client at the issuer, for RFC 7662 introspection of opaque tokens. */
export const IntrospectionSchema = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        description: 'Default: the issuer metadata’s `introspection_endpoint`.',
      }),
    ),
    clientId: Type.String({ minLength: 1, description: 'The gateway’s client id at the issuer.' }),
    clientSecretEnv: Type.String({
      pattern: ENV_NAME_PATTERN,
      description: 'The environment variable holding its secret (secrets stay out of the file).',
    }),
    cacheSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3600,
        default: 30,
        description: 'How long an active answer is reused (never past the token’s `exp`); 0 asks every time.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Opaque (non-JWT) access tokens are asked about at the issuer.' },
);

/** OAuth 2.1 bearer tokens from an identity provider. */
export const OAuthSchema = Type.Object(
  {
    issuer: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: 'The identity provider’s issuer; tokens must carry it as `iss`. `https` unless on loopback.',
    }),
    audience: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description: 'The gateway’s public MCP URL (RFC 8707); tokens must name it in `aud`.',
    }),
    jwksUri: Type.Optional(
      Type.String({ format: 'uri', pattern: '^https?://', description: 'Default: discovered from the issuer.' }),
    ),
    algorithms: Type.Optional(
      Type.Array(Type.String({ pattern: ASYMMETRIC_ALGORITHM_PATTERN }), {
        minItems: 1,
        description: 'Signature algorithms accepted. Default RS256, PS256, ES256, EdDSA.',
      }),
    ),
    clockToleranceSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 300, default: 30, description: 'Clock skew tolerated on `exp` and `nbf`.' }),
    ),
    keyRefreshCooldownSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 3600,
        default: 30,
        description: 'A token signed by an unknown key refetches the issuer’s keys at most this often.',
      }),
    ),
    requiredScopes: Type.Optional(
      Type.Array(Type.String({ pattern: SCOPE_PATTERN }), {
        description: 'Scopes every request needs (`403 insufficient_scope` otherwise).',
      }),
    ),
    introspection: Type.Optional(IntrospectionSchema),
    claims: Type.Optional(
      Type.Object(
        {
          principal: Type.Optional(ClaimPath('The claim naming the caller. Default `sub`.')),
          scopes: Type.Optional(ClaimPath('The claim holding scopes. Default `scope`, else `scp`.')),
          roles: Type.Optional(ClaimPath('A dotted path to roles or groups, e.g. `realm_access.roles`.')),
        },
        { additionalProperties: false, description: 'Where the caller, scopes and roles are read from.' },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Callers identified by OAuth access tokens (the gateway as a resource server).',
  },
);

export const IdentitySchema = Type.Object(
  {
    apiKeys: Type.Optional(
      Type.Record(Type.String({ pattern: API_KEY_PATTERN }), ApiKeyCallerSchema, {
        additionalProperties: false,
        description: 'Bearer API keys and the caller each one identifies.',
      }),
    ),
    anonymous: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Serve callers nothing identifies as one shared principal (local use only).',
      }),
    ),
    oauth: Type.Optional(OAuthSchema),
  },
  { additionalProperties: false, description: 'Who is calling, over HTTP (stdio is one local caller).' },
);

/** Secrets kept from the client, the logs, the traces and the person approving a call. */
export const RedactSchema = Type.Object(
  {
    results: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Redact tool results (`content`, `structuredContent`) before the client sees them; the count is in the result’s `_meta`. Logs, traces, upstream errors and what an approver is shown are redacted regardless.',
      }),
    ),
    patterns: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({
              pattern: DETECTOR_ID_PATTERN,
              description: 'Names the detector in its marker `[REDACTED:<id>]`; not a built-in detector’s id.',
            }),
            pattern: Type.String({
              minLength: 1,
              description:
                'A JavaScript regular expression (flags `gu`) that never matches the empty string; each match is replaced.',
            }),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'Your own detectors, run after the built-in ones (private keys, cloud and API tokens, JWTs, passwords in URLs and fields).',
        },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'Secrets replaced by `[REDACTED:<detector>]` before they leave the gateway.',
  },
);

export const GatewayConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'The JSON Schema this file follows (for editors).' })),
    name: Type.Optional(
      Type.String({ minLength: 1, default: 'mcp-ext-gateway', description: 'The gateway’s server name.' }),
    ),
    upstreams: Type.Record(Name, UpstreamSchema, {
      additionalProperties: false,
      minProperties: 1,
      description: 'The servers behind the gateway, by name. With several, tools are offered as `<name>__<tool>`.',
    }),
    policy: Type.Optional(
      Type.Record(Type.String({ pattern: TOOL_GLOB_PATTERN }), ToolPolicySchema, {
        additionalProperties: false,
        description:
          'Policy by tool name or glob (`*`, `?`; with several upstreams, `<name>__<tool>`); every matching entry applies, later ones winning field by field.',
      }),
    ),
    manifests: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        description:
          'Service manifest files (relative to the config file) whose confirmation, cost, latency and scopes apply to tools of the same names, before `policy`.',
      }),
    ),
    defaults: Type.Optional(
      Type.Object(
        {
          confirmDestructive: Type.Optional(
            Type.Boolean({
              default: true,
              description: 'Confirm tools annotated `destructiveHint: true` when the policy is silent.',
            }),
          ),
          format: Type.Optional(
            Type.Union([Type.Literal('json'), Type.Literal('markdown'), Type.Literal('text')], {
              description: 'Content negotiation: the format when the client asks for none.',
            }),
          ),
          verbosity: Type.Optional(
            Type.Union([Type.Literal('compact'), Type.Literal('standard'), Type.Literal('verbose')], {
              description: 'Content negotiation: the verbosity when the client asks for none.',
            }),
          ),
        },
        { additionalProperties: false, description: 'What applies when the policy and the client say nothing.' },
      ),
    ),
    store: Type.Optional(StoreSchema),
    listen: Type.Optional(ListenSchema),
    identity: Type.Optional(IdentitySchema),
    pins: Type.Optional(PinsConfigSchema),
    redact: Type.Optional(RedactSchema),
  },
  { additionalProperties: false, $id: CONFIG_SCHEMA_ID, title: 'GatewayConfig' },
);

export type GatewayConfig = Static<typeof GatewayConfigSchema>;
export type Upstream = Static<typeof UpstreamSchema>;
export type StdioUpstream = Static<typeof StdioUpstreamSchema>;
export type HttpUpstream = Static<typeof HttpUpstreamSchema>;
export type ToolPolicy = Static<typeof ToolPolicySchema>;
export type CostPolicy = Static<typeof CostPolicySchema>;
export type Compensation = Static<typeof CompensationSchema>;
export type ConfirmPolicy = Static<typeof ConfirmPolicySchema>;
export type IntentRule = Static<typeof IntentRuleSchema>;
export type RiskLevel = 'safe' | 'reversible' | 'destructive';
