/** The schema of `approvals`: calls held for an operator (`confirm.approver`), where operators decide them, and who hears of them. */
import Type from 'typebox';
import { ENV_NAME_PATTERN } from './patterns.js';

const seconds = (fallback: number, maximum: number, description: string) =>
  Type.Integer({ minimum: 0, maximum, default: fallback, description });

const WebhookSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', description: 'Where each new request is POSTed.' }),
    secretEnv: Type.String({
      pattern: ENV_NAME_PATTERN,
      description:
        'The environment variable holding the endpoint’s Standard Webhooks secret (`whsec_…`); the receiver verifies each delivery with it.',
    }),
    format: Type.Optional(
      Type.Union([Type.Literal('standard'), Type.Literal('slack')], {
        default: 'standard',
        description:
          '`standard`: the request as JSON; `slack`: a Slack-compatible message with approve and deny buttons.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ApprovalsSchema = Type.Object(
  {
    ttlSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 604_800,
        default: 900,
        description: 'How long a request waits for a decision; then it expires and the call does not run.',
      }),
    ),
    holdSeconds: Type.Optional(
      seconds(
        20,
        300,
        'How long a call that is not a task waits for the decision before it is answered `CONFIRMATION_PENDING` (its retry attaches to the same request).',
      ),
    ),
    scope: Type.Optional(
      Type.String({
        minLength: 1,
        default: 'approvals:decide',
        description: 'The scope an operator’s API key or token needs to see and decide requests.',
      }),
    ),
    path: Type.Optional(
      Type.String({
        pattern: '^/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$',
        default: '/approvals',
        description: 'Where the approvals page and its API are served.',
      }),
    ),
    publicUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https?://',
        description:
          'The gateway’s address as people reach it (`https://gateway.example`): links in `CONFIRMATION_PENDING` and in webhooks start with it. Default: the listen address.',
      }),
    ),
    webhooks: Type.Optional(Type.Array(WebhookSchema, { description: 'Endpoints told of each new request.' })),
    linkSecretEnv: Type.Optional(
      Type.String({
        pattern: ENV_NAME_PATTERN,
        description:
          'The environment variable holding the secret (at least 32 characters) that signs the single-use approve and deny links webhooks carry; required with `webhooks`.',
      }),
    ),
    linkTtlSeconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 604_800,
        default: 900,
        description: 'How long a webhook’s approve and deny links work (never past the request’s expiry).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Calls held for an operator (`confirm.approver: operator` or `either`): an approvals page, signed webhooks and `mcp-ext-gateway approvals`.',
  },
);
