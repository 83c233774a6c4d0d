/** Test helpers: declared event types, a server and client pair over a shared store, and waiting for a condition. */
import { MemoryStore, type AuthInfo, type Store } from '@ext/core';
import { silentLogger } from '@ext/core/kit';
import { createTestPair, type TestLine, type TestPair } from '@ext/core/testing';
import { errorsClient } from '@ext/errors/client';
import { errorsServer } from '@ext/errors/server';
import Type from 'typebox';
import { eventsClient } from './client.js';
import { eventsServer, type EventsServerExtension, type EventsServerOptions } from './server.js';

/** The event types of the fixture server: a ticket tracker and a CI system. */
export const FIXTURE_EVENTS = {
  ticket_updated: {
    description: 'A ticket changed status',
    payload: Type.Object({ id: Type.String(), project: Type.String(), status: Type.String(), seq: Type.Integer() }),
    filter: Type.Object(
      {
        project: Type.Optional(Type.String({ minLength: 1 })),
        status: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
      },
      { additionalProperties: false },
    ),
  },
  build_finished: {
    description: 'A CI build finished',
    payload: Type.Object({ repository: Type.String(), ok: Type.Boolean(), seq: Type.Integer() }),
    filter: Type.Object({ repository: Type.Optional(Type.String()) }, { additionalProperties: false }),
  },
};

export type FixtureEvents = typeof FIXTURE_EVENTS;

export function fixtureServer(
  options: Partial<EventsServerOptions<FixtureEvents>> = {},
): EventsServerExtension<FixtureEvents> {
  return eventsServer({ events: FIXTURE_EVENTS, logger: silentLogger, wakeIntervalMs: 200, ...options });
}

export interface PairOptions {
  readonly server?: EventsServerExtension<FixtureEvents>;
  readonly client?: boolean;
  readonly store?: Store;
  readonly authInfo?: AuthInfo;
}

export interface Fixture {
  readonly pair: TestPair;
  readonly events: EventsServerExtension<FixtureEvents>;
  readonly store: Store;
}

/** A client and server pair with errors and events on both sides (events on the client unless `client: false`). */
export async function eventsPair(line: TestLine, options: PairOptions = {}): Promise<Fixture> {
  const events = options.server ?? fixtureServer();
  const store = options.store ?? new MemoryStore();
  const pair = await createTestPair({
    line,
    serverExtensions: [errorsServer(), events],
    clientExtensions: [errorsClient(), options.client !== false && eventsClient()],
    serverOptions: { store, logger: silentLogger },
    clientOptions: { logger: silentLogger },
    authInfo: options.authInfo ?? { clientId: 'alice' },
  });
  return { pair, events, store };
}

/** Waits until `condition` holds, checking every few milliseconds; fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
