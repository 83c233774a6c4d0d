import { seedValidators } from '@ext/core/testing';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventsClient } from './client.js';
import { toNotification } from './feed.js';
import { eventsJsonSchema, SCHEMA_BASE } from './schema.js';
import { fixtureServer } from './test-fixtures.js';

describe('the shipped JSON Schema document', () => {
  it('schema.json is the generated document (refresh with vitest -u)', async () => {
    await expect(`${JSON.stringify(eventsJsonSchema(), null, 2)}\n`).toMatchFileSnapshot('./schema.json');
  });

  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  ajv.addSchema(eventsJsonSchema());
  const check = (name: string, value: unknown): boolean => ajv.validate(`${SCHEMA_BASE}/${name}.json`, value);
  const seed = seedValidators();
  const id = fc.stringMatching(/^[a-zA-Z0-9_\-:.]{1,40}$/);
  const name = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_\-.:]{0,20}$/);
  const timestamp = fc
    .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((date) => date.toISOString());
  const payload = fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }));

  it('EVT-1: compiles under JSON Schema 2020-12 and accepts what both halves advertise', () => {
    expect(check('server-settings', fixtureServer().settings)).toBe(true);
    expect(check('client-settings', eventsClient().settings)).toBe(true);
    expect(check('server-settings', { version: '1.0', delivery: ['push'] })).toBe(false);
  });

  it('EVT-4: every subscription request this package accepts is a seed SubscriptionRequest', () => {
    const seedRequest = seed.check('subscribe-notify', 'SubscriptionRequest');
    fc.assert(
      fc.property(
        fc.record(
          {
            subscription_id: id,
            events: fc.array(name, { minLength: 1, maxLength: 5 }),
            filter: payload,
            ttl_seconds: fc.integer({ min: 1, max: 10 ** 6 }),
            cursor: fc.string({ maxLength: 30 }),
            delivery: fc.constantFrom('notification', 'stream', 'poll'),
          },
          { requiredKeys: ['events'] },
        ),
        (request) => {
          expect(check('subscription-request', request)).toBe(true);
          expect(seedRequest(request).valid).toBe(true);
        },
      ),
    );
  });

  it('EVT-4: every subscription response is a seed SubscriptionResponse', () => {
    const seedResponse = seed.check('subscribe-notify', 'SubscriptionResponse');
    fc.assert(
      fc.property(
        fc.record(
          {
            subscription_id: id,
            status: fc.constantFrom('active', 'denied'),
            expires_at: timestamp,
            supported_events: fc.array(name),
            reason: fc.string(),
            cursor: fc.string({ maxLength: 30 }),
            delivery: fc.constantFrom('notification', 'stream', 'poll'),
            ttl_seconds: fc.integer({ min: 1 }),
            poll_interval_seconds: fc.integer({ min: 1 }),
          },
          { requiredKeys: ['subscription_id', 'status'] },
        ),
        (response) => {
          expect(check('subscription-response', response)).toBe(true);
          expect(seedResponse(response).valid).toBe(true);
        },
      ),
    );
  });

  it('EVT-11: every event notification built by the server is a seed EventNotification', () => {
    const seedNotification = seed.check('subscribe-notify', 'EventNotification');
    fc.assert(
      fc.property(
        id,
        fc.string({ minLength: 1, maxLength: 30 }),
        name,
        timestamp,
        payload,
        fc.option(
          fc.record({ recommended_tool: fc.string(), parameters: payload, reason: fc.string() }, { requiredKeys: [] }),
          { nil: undefined },
        ),
        fc.string({ maxLength: 30 }),
        (subscription, cursor, event, at, data, hint, previous) => {
          const notification = toNotification(
            subscription,
            cursor,
            { event, timestamp: at, payload: data, action_hint: hint },
            previous,
          );
          expect(check('event-notification', notification)).toBe(true);
          expect(seedNotification(notification).valid).toBe(true);
        },
      ),
    );
  });

  it('EVT-13: the unsubscribe request is the seed UnsubscribeRequest', () => {
    const seedUnsubscribe = seed.check('subscribe-notify', 'UnsubscribeRequest');
    fc.assert(
      fc.property(id, (subscription) => {
        expect(check('unsubscribe-request', { subscription_id: subscription })).toBe(true);
        expect(seedUnsubscribe({ subscription_id: subscription }).valid).toBe(true);
      }),
    );
    expect(check('unsubscribe-request', {})).toBe(false);
  });

  it('EVT-15: termination notices and poll results are well-formed', () => {
    expect(check('termination-notice', { subscription_id: 's', reason: 'expired', cursor: '' })).toBe(true);
    expect(check('termination-notice', { subscription_id: 's', reason: '', cursor: '' })).toBe(false);
    const event = toNotification('s', '2', { event: 'e', timestamp: '2026-01-01T00:00:00.000Z', payload: {} }, '1');
    const poll = {
      subscription_id: 's',
      status: 'active',
      events: [event],
      cursor: '2',
      has_more: false,
      poll_interval_seconds: 5,
      expires_at: '2026-01-01T01:00:00.000Z',
    };
    expect(check('poll-result', poll)).toBe(true);
    expect(check('poll-result', { ...poll, events: [{ ...event, type: 'other' }] })).toBe(false);
  });
});
