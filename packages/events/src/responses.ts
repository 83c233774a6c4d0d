/** Client side: checks of what the server answers, against the wire schemas, compiled on first use. */
import { ExtensionError } from '@ext/core';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  ActionHintSchema,
  EventNotificationSchema,
  EventTypeDescriptorSchema,
  ListEventsResultSchema,
  PollResultSchema,
  SCHEMA_BASE,
  StreamResultSchema,
  SubscriptionResponseSchema,
  TerminationNoticeSchema,
  type EventNotification,
  type ListEventsResult,
  type PollResult,
  type StreamResult,
  type SubscriptionResponse,
  type TerminationNotice,
} from './schema.js';

/** The schemas the result schemas refer to by `$id`. */
const REFS: Record<string, TSchema> = {
  [`${SCHEMA_BASE}/action-hint.json`]: ActionHintSchema,
  [`${SCHEMA_BASE}/event-notification.json`]: EventNotificationSchema,
  [`${SCHEMA_BASE}/event-type.json`]: EventTypeDescriptorSchema,
};

/** What the client checks, by kind. */
interface Answers {
  list: ListEventsResult;
  poll: PollResult;
  subscribe: SubscriptionResponse;
  stream: StreamResult;
  event: EventNotification;
  terminated: TerminationNotice;
}

const SCHEMAS: Readonly<Record<keyof Answers, TSchema>> = {
  list: ListEventsResultSchema,
  poll: PollResultSchema,
  subscribe: SubscriptionResponseSchema,
  stream: StreamResultSchema,
  event: EventNotificationSchema,
  terminated: TerminationNoticeSchema,
};

const checks = new Map<keyof Answers, { Check(value: unknown): boolean }>();

/** Whether `value` is a well-formed answer of `kind`; its schema is compiled (with {@link REFS}) on first use. */
export function isAnswer<K extends keyof Answers>(kind: K, value: unknown): value is Answers[K] {
  let check = checks.get(kind);
  if (check === undefined) {
    check = Compile(REFS, SCHEMAS[kind]);
    checks.set(kind, check);
  }
  return check.Check(value);
}

/** The error for an answer that does not follow the wire contract. */
export function malformed(what: string): ExtensionError {
  return new ExtensionError('permanent', 'INVALID_RESPONSE', `The server sent a malformed ${what}`, {
    suggestion: 'The server does not follow the events wire contract; report it to its maintainers.',
  });
}
