/** The server's transactions settings as this client negotiated them. */
import type { ExtendedClient, NegotiatedExtension } from '@ext/core';
import { TRANSACTIONS_ID, type ServerSettings } from './schema.js';

/** The server's transactions settings, or `undefined` when the extension was not negotiated. */
export function getTransactionsSettings(
  client: Pick<ExtendedClient, 'negotiated'>,
): NegotiatedExtension<ServerSettings> | undefined {
  return client.negotiated<ServerSettings>(TRANSACTIONS_ID);
}
