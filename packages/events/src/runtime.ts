/** What one `eventsServer` shares between its methods and its handles: the options, the catalog, the hubs. */
import { ConfigurationError } from '@ext/core';
import { buildCatalog, type Catalog } from './catalog.js';
import { Hubs } from './hub.js';
import { resolveOptions, WHERE, type EventsServerOptions, type ResolvedOptions } from './options.js';

export interface EventsRuntime {
  /** As the author gave them (`authorize` is called on them). */
  readonly options: EventsServerOptions;
  readonly config: ResolvedOptions;
  readonly catalog: Catalog;
  /** The declared event type names, as every subscription response lists them. */
  readonly supported: string[];
  readonly hubs: Hubs;
}

/** Checks the options and compiles the event types. Throws `ConfigurationError`. */
export function createRuntime(options: EventsServerOptions): EventsRuntime {
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError('INVALID_OPTION', `${WHERE}: options with an events map are required`);
  }
  const config = resolveOptions(options);
  const catalog = buildCatalog(options.events, WHERE);
  return { options, config, catalog, supported: [...catalog.keys()], hubs: new Hubs(catalog, config) };
}
