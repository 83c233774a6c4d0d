/**
 * The gateway's operations side, put together from the config's `metrics`
 * section: the recorder its parts tell events to, the series it feeds (when
 * `metrics` is there), and the endpoints that serve them with `/healthz` and
 * `/readyz`, beside the MCP endpoint or on an address of their own.
 */
import type { ComposedServer, Logger, Store } from '@ext/core';
import type { ApprovalDesk, ApproverBackend } from '@ext/confirmation/approvals';
import { operatorOf } from '../approvals.js';
import {
  DEFAULT_METRICS_HOST,
  DEFAULT_METRICS_PATH,
  DEFAULT_METRICS_SCOPE,
  type MetricsConfig,
} from '../config/metrics-schema.js';
import type { CallerIdentification } from '../identity.js';
import { approvalsBackend, PendingApprovals, watchPendingApprovals } from './approvals.js';
import { observeCalls, type CallObservation } from './calls.js';
import { listenOperations, type OperationsListening } from './listener.js';
import { readiness, storeAnswers } from './readiness.js';
import { gatewayRecorder, type GatewayRecorder } from './recorder.js';
import { exposition, gatewayMetrics, processMetrics, type GatewayMetrics } from './registry.js';
import { jsonRefusal, operationsHandler, type OperationsRoutes } from './serve.js';
import { observedStore } from './store.js';
import { UpstreamStates } from './upstream-states.js';

/** What the endpoints read, once the gateway has them. */
export interface OperationsSources {
  readonly store: Store;
  /** The upstreams the gateway has now (a reload may change them). */
  readonly upstreams: () => readonly string[];
  /** How callers are identified beside the MCP endpoint (an operator scrapes there). */
  readonly identification: () => CallerIdentification;
  readonly desk?: ApprovalDesk | undefined;
}

export interface GatewayOperations {
  /** What the gateway's parts tell: calls, refusals, upstream and store events. */
  readonly recorder: GatewayRecorder;
  /** `store`, its failures counted (itself without metrics). */
  observedStore(store: Store): Store;
  /** `composed`, its tool calls timed and counted (itself without metrics). */
  observeCalls(composed: ComposedServer, toolOf: CallObservation['toolOf']): ComposedServer;
  /** Approver backends for the approval desk (they count requests and decisions). */
  readonly approvalBackends: readonly ApproverBackend[];
  /** Reads `sources` from now on; starts the separate address, if the config has one. */
  start(sources: OperationsSources): Promise<void>;
  /** The endpoints served beside the MCP endpoint; `undefined` for any other path. */
  pages(request: Request): Promise<Response | undefined>;
  /** Where the separate address serves, once started (`metrics.listen`). */
  readonly url: URL | undefined;
  close(): Promise<void>;
}

/** Refuses a scrape from anyone but an operator holding `scope`. */
function operatorScrapes(identification: () => CallerIdentification, scope: string) {
  return async (request: Request): Promise<Response | undefined> => {
    const operator = await operatorOf(identification(), request);
    if (operator === undefined) {
      return jsonRefusal(401, 'UNAUTHENTICATED', 'Send Authorization: Bearer <API key or access token>');
    }
    return operator.scopes.includes(scope)
      ? undefined
      : jsonRefusal(403, 'MISSING_SCOPE', `Reading the metrics needs the scope ${scope}`);
  };
}

function scrapeOf(metrics: GatewayMetrics) {
  return async () => ({ text: await exposition(metrics), contentType: processMetrics().contentType });
}

/** The operations side for the config's `metrics` section (none: health and readiness only). */
export function gatewayOperations(config: MetricsConfig | undefined, logger: Logger): GatewayOperations {
  const states = new UpstreamStates();
  const pending = new PendingApprovals();
  let sources: OperationsSources | undefined;
  const metrics =
    config === undefined
      ? undefined
      : gatewayMetrics({
          states,
          upstreams: () => sources?.upstreams() ?? [],
          pendingApprovals: () => pending.count(Date.now()),
        });
  const recorder = gatewayRecorder(states, metrics?.series);
  const ready = async () => {
    if (sources === undefined) return readiness({ storeOk: false, upstreams: [], states });
    return readiness({ storeOk: await storeAnswers(sources.store), upstreams: sources.upstreams(), states });
  };
  const metricsPath = config?.path ?? DEFAULT_METRICS_PATH;
  const scope = config?.scope ?? DEFAULT_METRICS_SCOPE;
  const beside: OperationsRoutes = {
    ready,
    ...(metrics === undefined || config?.listen !== undefined
      ? {}
      : {
          metricsPath,
          scrape: scrapeOf(metrics),
          authorize: (request: Request) =>
            sources === undefined
              ? Promise.resolve(jsonRefusal(503, 'STARTING', 'The gateway is starting'))
              : operatorScrapes(sources.identification, scope)(request),
        }),
  };
  const pages = operationsHandler(beside);
  let listening: OperationsListening | undefined;
  const stops: (() => Promise<void>)[] = [];

  return {
    recorder,
    observedStore: (store) => (metrics === undefined ? store : observedStore(store, recorder)),
    observeCalls: (composed, toolOf) =>
      metrics === undefined ? composed : observeCalls(composed, { recorder, toolOf }),
    approvalBackends: metrics === undefined ? [] : [approvalsBackend(recorder)],
    async start(given) {
      sources = given;
      if (metrics !== undefined && given.desk !== undefined)
        stops.push(await watchPendingApprovals(given.desk, pending, logger));
      const listen = config?.listen;
      if (metrics === undefined || listen === undefined) return;
      const apart = operationsHandler({ ready, metricsPath, scrape: scrapeOf(metrics) });
      listening = await listenOperations(apart, {
        port: listen.port,
        host: listen.host ?? DEFAULT_METRICS_HOST,
        logger,
      });
      stops.push(() => listening?.close() ?? Promise.resolve());
    },
    pages,
    get url() {
      return listening?.url;
    },
    async close() {
      for (const stop of stops.splice(0).reverse()) await stop();
    },
  };
}
