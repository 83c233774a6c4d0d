/**
 * `approvalWebhooks(options)`: an approver backend that sends each approval
 * request (and each decision) as a signed webhook, with single-use signed
 * links to approve or deny it, and the handler that serves those links.
 */
import type { ApprovalDesk, ApprovalEvent, ApproverBackend } from '../desk.js';
import type { ApprovalRecord } from '../record.js';
import { deliver } from './delivery.js';
import { linksHandler } from './links-handler.js';
import { newLinkNonce, signLinkToken, type LinkDecision } from './link-token.js';
import {
  resolveWebhooksOptions,
  type ApprovalWebhooksOptions,
  type ResolvedEndpoint,
  type WebhooksConfig,
} from './options.js';
import { slackMessage } from './slack-message.js';
import { standardMessage, type DecisionLinks } from './standard-message.js';

/** The backend to give the desk, and the handler to serve the links at `linkBaseUrl`. */
export interface ApprovalWebhooks {
  readonly backend: ApproverBackend;
  readonly links: {
    /** Answers a request for a decision link; `undefined` when its path is not under `linkBaseUrl`. */
    fetch(request: Request): Promise<Response | undefined>;
  };
}

/** The approve and deny links of a request: one nonce each, both expiring with the link lifetime or the request. */
function decisionLinks(config: WebhooksConfig, record: ApprovalRecord): DecisionLinks {
  const exp = Math.min(Math.floor(config.now() / 1000) + config.linkTtlSeconds, Math.floor(record.expires_at / 1000));
  const link = (decision: LinkDecision) =>
    `${config.linkPrefix}/${signLinkToken({ id: record.id, decision, exp, nonce: newLinkNonce() }, config.linkKey)}`;
  return { approve: link('approve'), deny: link('deny') };
}

function messageBody(
  endpoint: ResolvedEndpoint,
  event: ApprovalEvent,
  links: DecisionLinks | undefined,
  nowMs: number,
) {
  const body = endpoint.format === 'slack' ? slackMessage(event, links) : standardMessage(event, links, nowMs);
  return JSON.stringify(body);
}

/** Throws what went wrong when any delivery failed (after every endpoint was tried). */
function throwFailures(results: readonly PromiseSettledResult<void>[]): void {
  const reasons = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
  const [first] = reasons;
  if (reasons.length === 1) throw first;
  if (reasons.length > 1) throw new AggregateError(reasons, `${reasons.length} approval webhook deliveries failed`);
}

/**
 * Creates the backend and the links handler. Options are checked here; a
 * bad one throws `ConfigurationError('INVALID_OPTION')` naming it.
 *
 * @example
 * const webhooks = approvalWebhooks({ endpoints, linkBaseUrl, linkSecret, store, desk: () => desk });
 * const desk = approvalDesk({ store, backends: [webhooks.backend] });
 * // in the HTTP server: (await webhooks.links.fetch(request)) ?? next(request)
 */
export function approvalWebhooks(options: ApprovalWebhooksOptions): ApprovalWebhooks {
  const config = resolveWebhooksOptions(options);
  let notifiedBy: ApprovalDesk | undefined;

  const backend: ApproverBackend = {
    name: 'webhooks',
    async notify(event, desk) {
      notifiedBy = desk;
      const links = event.type === 'requested' ? decisionLinks(config, event.record) : undefined;
      const nowMs = config.now();
      const results = await Promise.allSettled(
        config.endpoints.map((endpoint) => deliver(endpoint, messageBody(endpoint, event, links, nowMs), config)),
      );
      throwFailures(results);
    },
  };

  const handler = linksHandler({
    basePath: config.linkPath,
    linkKey: config.linkKey,
    store: config.store,
    keyPrefix: config.keyPrefix,
    now: config.now,
    desk: () => config.desk?.() ?? notifiedBy,
  });
  return { backend, links: { fetch: handler } };
}
