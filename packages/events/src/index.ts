/**
 * The `.` entry of `@ext/events`: identifiers, method and notification names,
 * the wire schemas (through `EVENTS_SCHEMAS`) and their types, the event
 * declaration type, and the settings reader.
 */
export {
  EVENTS_ID,
  EVENTS_PACKAGE,
  EVENTS_WIRE_VERSION,
  DELIVERY_MODES,
  TERMINATION_REASONS,
  EVENTS_SCHEMAS,
  eventsNotification,
  eventsMethod,
  eventsJsonSchema,
} from './schema.js';
export type {
  DeliveryMode,
  TerminationReason,
  EventsServerSettings,
  EventsClientSettings,
  EventTypeDescriptor,
  ListEventsResult,
  SubscriptionRequest,
  SubscriptionResponse,
  ActionHint,
  EventNotification,
  TerminationNotice,
  UnsubscribeRequest,
  UnsubscribeResult,
  PollRequest,
  PollResult,
  StreamRequest,
  StreamResult,
} from './schema.js';
export type { EventDefinition } from './catalog.js';
export { getEventsSettings } from './settings.js';
