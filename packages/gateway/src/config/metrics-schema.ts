/** The schema of `metrics`: where Prometheus scrapes the gateway, and who may. */
import Type, { type Static } from 'typebox';
import { SCOPE_PATTERN } from './patterns.js';

export const DEFAULT_METRICS_PATH = '/metrics';
export const DEFAULT_METRICS_SCOPE = 'gateway:metrics';
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/** A path served beside the MCP endpoint (as `approvals.path`). */
const PAGE_PATH_PATTERN = '^/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$';

const MetricsListenSchema = Type.Object(
  {
    port: Type.Integer({
      minimum: 0,
      maximum: 65_535,
      description: 'TCP port of the separate address (`0` picks a free one).',
    }),
    host: Type.Optional(
      Type.String({
        minLength: 1,
        default: DEFAULT_METRICS_HOST,
        description:
          'Interface to listen on. Nothing is authenticated there: bind it where only your scraper and probes reach.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Serve the metrics (and `/healthz`, `/readyz`) on an address of their own, without authentication, instead of beside the MCP endpoint.',
  },
);

export const MetricsSchema = Type.Object(
  {
    path: Type.Optional(
      Type.String({
        pattern: PAGE_PATH_PATTERN,
        default: DEFAULT_METRICS_PATH,
        description: 'Where the metrics are served, in the Prometheus text format.',
      }),
    ),
    scope: Type.Optional(
      Type.String({
        pattern: SCOPE_PATTERN,
        default: DEFAULT_METRICS_SCOPE,
        description:
          'Beside the MCP endpoint: the scope an API key or access token needs to scrape (`401` without credentials, `403` without the scope).',
      }),
    ),
    listen: Type.Optional(MetricsListenSchema),
  },
  {
    additionalProperties: false,
    description:
      'Prometheus metrics: calls, latencies, refusals, confirmations and approvals, upstream and store health, the process.',
  },
);

export type MetricsConfig = Static<typeof MetricsSchema>;
