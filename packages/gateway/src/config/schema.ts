/**
 * The gateway's configuration, defined once: the TypeBox schema the loader
 * validates with, the TypeScript types derived from it, and the JSON Schema
 * document published beside the package (`gateway.schema.json`).
 */
import { ApprovalsSchema } from './approvals-schema.js';
import { MetricsSchema } from './metrics-schema.js';
import Type, { type Static } from 'typebox';
import { PinsConfigSchema } from '../pins/pins-config.js';
import { ReadyPoliciesSchema } from './ready-policies-schema.js';
import { IdentitySchema } from './identity-schema.js';
import {
  ALLOWED_HOST_PATTERN,
  ALLOWED_ORIGIN_PATTERN,
  DETECTOR_ID_PATTERN,
  ENV_NAME_PATTERN,
  HEADER_NAME_PATTERN,
  TOOL_GLOB_PATTERN,
  UPSTREAM_NAME_PATTERN,
} from './patterns.js';
import {
  CompensationSchema,
  ConfirmPolicySchema,
  CostPolicySchema,
  IntentRuleSchema,
  ToolPolicySchema,
} from './policy-schema.js';
import { BreakerSchema, UpstreamRetrySchema } from './resilience-schema.js';

/** Where the JSON Schema document is identified. */
export const CONFIG_SCHEMA_ID = 'https://mcp-ext.github.io/schemas/gateway/1.0/gateway.schema.json';

/** Longest timer Node.js keeps (a longer one fires at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;

const Name = Type.String({ pattern: UPSTREAM_NAME_PATTERN });
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
    retry: Type.Optional(UpstreamRetrySchema),
    breaker: Type.Optional(BreakerSchema),
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
    retry: Type.Optional(UpstreamRetrySchema),
    breaker: Type.Optional(BreakerSchema),
  },
  { additionalProperties: false, title: 'HttpUpstream' },
);

export const UpstreamSchema = Type.Union([StdioUpstreamSchema, HttpUpstreamSchema], {
  title: 'Upstream',
  description: 'An MCP server behind the gateway: a `command` (stdio) or a `url` (Streamable HTTP).',
});

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
    description:
      'Where state lives: `{ sqlite: path }`, `{ redis: url }`, or `memory`. Default: a SQLite file beside the config file, named after it (`gateway.yaml` keeps `gateway.db`).',
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

export type ApprovalsConfig = Static<typeof ApprovalsSchema>;

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
    policies: Type.Optional(ReadyPoliciesSchema),
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
    approvals: Type.Optional(ApprovalsSchema),
    metrics: Type.Optional(MetricsSchema),
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
