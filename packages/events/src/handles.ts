/**
 * The author's handles on the server half: publish an event, watch events
 * in process, and end a subscription early.
 */
import { randomUUID } from 'node:crypto';
import { ConfigurationError, type Store } from '@ext/core';
import { isRecord, renamedKeys } from '@ext/core/kit';
import { isSubscriptionId } from './catalog.js';
import { appendEvent, readHead } from './event-log.js';
import type { PublishOptions, WatchOptions } from './options.js';
import { checkSubscription } from './requests.js';
import type { EventsRuntime } from './runtime.js';
import type { EventNotification } from './schema.js';
import { isActionHint, parseRecord, subscriptionKey, type LogEntry } from './store-layout.js';
import { endSubscription } from './subscription-store.js';

/** An in-process subscription made with the server half's `watch`. */
export interface EventWatch {
  /** The position it started from. */
  readonly cursor: string;
  stop(): Promise<void>;
}

/** The author's hint in the seed's spelling (`recommended_tool`); the 0.1 spelling is still taken, with a warning. */
function wireHint(hint: PublishOptions['actionHint']): unknown {
  if (hint === undefined || !isRecord(hint)) return hint;
  const { recommendedTool, ...rest } = renamedKeys('@ext/events publish actionHint', hint, {
    recommended_tool: 'recommendedTool',
  });
  return recommendedTool === undefined ? rest : { recommended_tool: recommendedTool, ...rest };
}

/** Checks an event against its declaration and appends it to the log; returns its cursor. */
export async function publish(
  rt: EventsRuntime,
  store: Store,
  event: string,
  payload: Record<string, unknown>,
  options: PublishOptions = {},
): Promise<string> {
  const type = rt.catalog.get(event);
  if (type === undefined) {
    throw new ConfigurationError(
      'UNKNOWN_EVENT',
      `publish: event type "${event}" is not declared (declared: ${rt.supported.join(', ')})`,
    );
  }
  const violation = type.checkPayload(payload);
  if (violation !== undefined) {
    throw new ConfigurationError(
      'INVALID_EVENT_PAYLOAD',
      `publish("${event}"): payload${violation.pointer} ${violation.message}`,
    );
  }
  const hint: unknown = wireHint(options.actionHint);
  if (hint !== undefined && !isActionHint(hint)) {
    throw new ConfigurationError(
      'INVALID_EVENT_PAYLOAD',
      `publish("${event}"): actionHint must be { recommendedTool?, parameters?, reason? }`,
    );
  }
  const entry: LogEntry = {
    event,
    timestamp: new Date(rt.config.now()).toISOString(),
    payload,
    ...(hint === undefined ? {} : { action_hint: hint }),
  };
  return appendEvent(store, rt.config, entry);
}

/** Subscribes in process: `listener` gets every matching event in order. */
export async function watch(
  rt: EventsRuntime,
  store: Store,
  options: WatchOptions,
  listener: (event: EventNotification) => void | Promise<void>,
): Promise<EventWatch> {
  const events = [...options.events];
  const filter = options.filter ?? {};
  const failure = checkSubscription(events, filter, rt.catalog);
  if (failure !== undefined) throw new ConfigurationError(failure.code, `watch: ${failure.message}`);
  if (typeof listener !== 'function')
    throw new ConfigurationError('INVALID_OPTION', 'watch: listener must be a function');
  const start = options.after ?? (await readHead(store, rt.config.keyPrefix));
  const delivery = await rt.hubs.start(store, rt.config.logger, {
    key: undefined,
    subscriptionId: `watch-${randomUUID()}`,
    selector: { events: new Set(events), filter },
    cursor: start,
    sink: {
      event: async (notification) => {
        await listener(notification);
      },
      terminated: () => Promise.resolve(),
    },
  });
  return {
    cursor: start,
    async stop() {
      delivery.finish('closed', 'stopped');
      await delivery.done;
    },
  };
}

/** Ends a subscription early on every instance; `false` when there is no live one. */
export async function terminate(
  rt: EventsRuntime,
  store: Store,
  target: { readonly principal: string; readonly subscriptionId: string },
  reason: string,
  message?: string,
): Promise<boolean> {
  if (
    !isSubscriptionId(target.subscriptionId) ||
    typeof reason !== 'string' ||
    reason.length === 0 ||
    reason.length > 64
  ) {
    throw new ConfigurationError(
      'INVALID_OPTION',
      'terminate: subscriptionId must be a subscription id and reason a string of 1 to 64 characters',
    );
  }
  const key = subscriptionKey(rt.config.keyPrefix, target.principal, target.subscriptionId);
  const record = parseRecord(await store.get(key));
  if (record === undefined || record.terminated !== undefined) return false;
  await endSubscription(store, rt.config, { principal: target.principal, key, record }, reason, message);
  return true;
}
