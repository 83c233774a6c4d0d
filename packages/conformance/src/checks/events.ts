/** The events suite: the checks of a server that advertises `io.github.mcp-ext/events`. */
import { isRecord } from '@ext/core/kit';
import { describe, ensure, freshId } from '../assert.js';
import type { Probe } from '../probe.js';
import type { CheckContext, ExtensionSuite } from '../types.js';
import { detailsOf, expectMethodError, withErrors } from './methods.js';

export const EVENTS_ID = 'io.github.mcp-ext/events';
const DELIVERIES = ['notification', 'stream', 'poll'];
const EVENT_NAME = /^[a-zA-Z][a-zA-Z0-9_\-.:]{0,127}$/;

function method(ctx: CheckContext, verb: string): string {
  return `${ctx.id ?? EVENTS_ID}/${verb}`;
}

/** The event type names `list` answers (the check fails when the answer is malformed). */
async function eventNames(ctx: CheckContext, probe: Probe): Promise<string[]> {
  const answer = await probe.request(method(ctx, 'list'), {});
  ensure(Array.isArray(answer.events), `list answered ${describe(answer)}`);
  return answer.events.filter(isRecord).map((entry) => String(entry.name));
}

/** Subscribes to the first event type for polling; skipped when the server publishes none or denies it by policy. */
async function pollSubscription(
  ctx: CheckContext,
  probe: Probe,
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const [first] = await eventNames(ctx, probe);
  if (first === undefined) return ctx.skip('the server publishes no event type');
  const answer = await probe.request(method(ctx, 'subscribe'), {
    events: [first],
    subscription_id: freshId('conformance'),
    delivery: 'poll',
    ...extra,
  });
  if (answer.status === 'denied') return ctx.skip(`the server denied the subscription: ${describe(answer.reason)}`);
  return answer;
}

async function unsubscribe(ctx: CheckContext, probe: Probe, subscriptionId: unknown): Promise<Record<string, unknown>> {
  return probe.request(method(ctx, 'unsubscribe'), { subscription_id: subscriptionId });
}

/** `@ext/events` (SPEC: packages/events/SPEC.md). Subscriptions the checks open are closed again. */
export const eventsSuite: ExtensionSuite = {
  extension: 'events',
  ids: [EVENTS_ID],
  spec: 'packages/events/SPEC.md',
  checks: [
    {
      id: 'events/settings',
      requirement: 'EVT-1',
      level: 'MUST',
      title: 'settings carry the delivery modes and integer poll, TTL and stream limits',
      run(ctx) {
        const { delivery } = ctx.settings;
        ensure(
          Array.isArray(delivery) &&
            delivery.length > 0 &&
            delivery.every((mode) => typeof mode === 'string' && DELIVERIES.includes(mode)),
          `delivery is ${describe(delivery)}`,
        );
        for (const field of ['poll_interval_seconds', 'default_ttl_seconds', 'max_ttl_seconds', 'max_stream_seconds']) {
          ensure(
            Number.isSafeInteger(ctx.settings[field]) && (ctx.settings[field] as number) >= 1,
            `${field} is ${describe(ctx.settings[field])}`,
          );
        }
        return Promise.resolve();
      },
    },
    {
      id: 'events/list',
      requirement: 'EVT-3',
      level: 'MUST',
      title:
        'list answers every event type with name, description, payload_schema and filter_schema, and poll_interval_seconds',
      async run(ctx) {
        const answer = await (await ctx.connect(withErrors(ctx, EVENTS_ID))).request(method(ctx, 'list'), {});
        ensure(Array.isArray(answer.events), `events is ${describe(answer.events)}`);
        ensure(
          Number.isSafeInteger(answer.poll_interval_seconds),
          `poll_interval_seconds is ${describe(answer.poll_interval_seconds)}`,
        );
        for (const entry of answer.events) {
          ensure(isRecord(entry), `an event type is ${describe(entry)}`);
          ensure(typeof entry.name === 'string' && EVENT_NAME.test(entry.name), `event name ${describe(entry.name)}`);
          ensure(typeof entry.description === 'string', `${entry.name}: description is ${describe(entry.description)}`);
          for (const field of ['payload_schema', 'filter_schema']) {
            const schema = entry[field];
            ensure(
              isRecord(schema) && schema.type === 'object',
              `${entry.name}: ${field} is not an object schema: ${describe(schema)}`,
            );
          }
        }
      },
    },
    {
      id: 'events/subscribe',
      requirement: 'EVT-4',
      level: 'MUST',
      title:
        'subscribe answers a seed SubscriptionResponse; an active one carries expires_at, cursor, delivery, ttl_seconds, poll_interval_seconds',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        const names = await eventNames(ctx, probe);
        const answer = await pollSubscription(ctx, probe);
        try {
          const { _meta: _ignored, ...response } = answer;
          ctx.expectSeedShape(response, 'subscribe-notify', 'SubscriptionResponse', 'the subscribe answer');
          ensure(answer.status === 'active', `status is ${describe(answer.status)}`);
          for (const field of ['expires_at', 'cursor', 'delivery'])
            ensure(typeof answer[field] === 'string', `${field} is ${describe(answer[field])}`);
          for (const field of ['ttl_seconds', 'poll_interval_seconds'])
            ensure(Number.isSafeInteger(answer[field]), `${field} is ${describe(answer[field])}`);
          ensure(
            answer.delivery === 'poll',
            `delivery is ${describe(answer.delivery)} although the client asked to poll`,
          );
          const supported = Array.isArray(answer.supported_events) ? answer.supported_events : [];
          ensure(
            names.every((name) => supported.includes(name)),
            `supported_events ${describe(answer.supported_events)} lacks some of ${describe(names)}`,
          );
        } finally {
          await unsubscribe(ctx, probe, answer.subscription_id);
        }
      },
    },
    {
      id: 'events/ttl-capped',
      requirement: 'EVT-7',
      level: 'MUST',
      title: 'a ttl_seconds above max_ttl_seconds is lowered to it, not refused',
      async run(ctx) {
        const max = ctx.settings.max_ttl_seconds;
        if (!Number.isSafeInteger(max)) return ctx.skip('the server advertises no integer max_ttl_seconds');
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        const answer = await pollSubscription(ctx, probe, { ttl_seconds: (max as number) + 1000 });
        try {
          ensure(answer.status === 'active', `status is ${describe(answer.status)}`);
          ensure(
            Number.isSafeInteger(answer.ttl_seconds) && (answer.ttl_seconds as number) <= (max as number),
            `ttl_seconds is ${describe(answer.ttl_seconds)}, max ${String(max)}`,
          );
        } finally {
          await unsubscribe(ctx, probe, answer.subscription_id);
        }
      },
    },
    {
      id: 'events/poll',
      requirement: 'EVT-10',
      level: 'MUST',
      title:
        'poll answers status, events (seed EventNotifications), cursor, has_more, poll_interval_seconds and expires_at',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        const subscription = await pollSubscription(ctx, probe);
        try {
          const answer = await probe.request(method(ctx, 'poll'), {
            subscription_id: subscription.subscription_id,
            limit: 10,
          });
          ensure(
            answer.subscription_id === subscription.subscription_id,
            `subscription_id is ${describe(answer.subscription_id)}`,
          );
          ensure(answer.status === 'active', `status is ${describe(answer.status)} for a live subscription`);
          ensure(Array.isArray(answer.events) && answer.events.length <= 10, `events is ${describe(answer.events)}`);
          for (const event of answer.events)
            ctx.expectSeedShape(event, 'subscribe-notify', 'EventNotification', 'a polled event');
          ensure(typeof answer.cursor === 'string', `cursor is ${describe(answer.cursor)}`);
          ensure(typeof answer.has_more === 'boolean', `has_more is ${describe(answer.has_more)}`);
          ensure(
            Number.isSafeInteger(answer.poll_interval_seconds),
            `poll_interval_seconds is ${describe(answer.poll_interval_seconds)}`,
          );
          ensure(typeof answer.expires_at === 'string', `expires_at is ${describe(answer.expires_at)}`);
        } finally {
          await unsubscribe(ctx, probe, subscription.subscription_id);
        }
      },
    },
    {
      id: 'events/unsubscribe',
      requirement: 'EVT-13',
      level: 'MUST',
      title:
        'unsubscribe answers { subscription_id, status: "unsubscribed" }; an unknown id fails with SUBSCRIPTION_NOT_FOUND',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        const subscription = await pollSubscription(ctx, probe);
        const answer = await unsubscribe(ctx, probe, subscription.subscription_id);
        ensure(
          answer.subscription_id === subscription.subscription_id && answer.status === 'unsubscribed',
          `unsubscribe answered ${describe(answer)}`,
        );
        await expectMethodError(
          ctx,
          probe,
          method(ctx, 'unsubscribe'),
          { subscription_id: freshId('conformance-unknown') },
          { category: 'permanent', code: 'SUBSCRIPTION_NOT_FOUND' },
        );
      },
    },
    {
      id: 'events/unknown-event',
      requirement: 'EVT-5',
      level: 'MUST',
      title: 'subscribing to an event type the server does not publish fails with -32602 UNKNOWN_EVENT naming it',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        const names = await eventNames(ctx, probe);
        const unknown = 'conformance_no_such_event';
        const data = await expectMethodError(
          ctx,
          probe,
          method(ctx, 'subscribe'),
          { events: [...names.slice(0, 1), unknown], delivery: 'poll' },
          { category: 'invalid_input', code: 'UNKNOWN_EVENT' },
        );
        const details = detailsOf(data);
        ensure(details.event === unknown, `details.event is ${describe(details.event)}`);
        ensure(
          details.pointer === `/events/${String(Math.min(names.length, 1))}`,
          `details.pointer is ${describe(details.pointer)}`,
        );
        ensure(
          Array.isArray(details.supported_events),
          `details.supported_events is ${describe(details.supported_events)}`,
        );
      },
    },
    {
      id: 'events/invalid-filter',
      requirement: 'EVT-6',
      level: 'MUST',
      title: 'a filter field no subscribed type declares fails with -32602 INVALID_FILTER naming it',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        const [first] = await eventNames(ctx, probe);
        if (first === undefined) return ctx.skip('the server publishes no event type');
        const field = 'conformance_undeclared';
        const data = await expectMethodError(
          ctx,
          probe,
          method(ctx, 'subscribe'),
          { events: [first], filter: { [field]: 'x' }, delivery: 'poll' },
          { category: 'invalid_input', code: 'INVALID_FILTER' },
        );
        const details = detailsOf(data);
        ensure(
          details.filter_field === field && details.pointer === `/filter/${field}`,
          `details are ${describe(details)}`,
        );
      },
    },
    {
      id: 'events/invalid-params',
      requirement: 'EVT-6',
      level: 'MUST',
      title:
        'malformed params (no event names, a poll without subscription_id) fail with -32602 INVALID_INPUT and a pointer',
      async run(ctx) {
        const probe = await ctx.connect(withErrors(ctx, EVENTS_ID));
        for (const [verb, params] of [
          ['subscribe', { events: [] }],
          ['poll', {}],
        ] as const) {
          const data = await expectMethodError(ctx, probe, method(ctx, verb), params, {
            category: 'invalid_input',
            code: 'INVALID_INPUT',
          });
          ensure(
            typeof detailsOf(data).pointer === 'string',
            `${verb}: details.pointer is ${describe(detailsOf(data).pointer)}`,
          );
        }
      },
    },
    {
      id: 'events/without-negotiation',
      requirement: 'EVT-18',
      level: 'MUST',
      title: 'a client that did not negotiate can subscribe and is given delivery "poll"',
      async run(ctx) {
        const probe = await ctx.connect({});
        const [first] = await eventNames(ctx, probe);
        if (first === undefined) return ctx.skip('the server publishes no event type');
        const answer = await probe.request(method(ctx, 'subscribe'), {
          events: [first],
          subscription_id: freshId('conformance'),
        });
        if (answer.status === 'denied')
          return ctx.skip(`the server denied the subscription: ${describe(answer.reason)}`);
        try {
          ensure(
            answer.delivery === 'poll',
            `delivery is ${describe(answer.delivery)} for a client without the extension`,
          );
        } finally {
          await unsubscribe(ctx, probe, answer.subscription_id);
        }
      },
    },
  ],
};
