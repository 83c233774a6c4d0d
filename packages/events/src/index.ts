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
export {
  EVENTS_SKETCH_ID,
  EVENTS_SKETCH_SETTINGS,
  SKETCH_METHODS,
  SKETCH_NOTIFICATIONS,
  SKETCH_SUBSCRIPTION_META,
  SKETCH_SUBSCRIPTION_HEADER,
  SKETCH_ERROR_CODES,
} from './sketch-wire.js';
export type {
  EventOccurrence,
  SketchDeliveryMode,
  SketchEventDescriptor,
  SketchPollResult,
  SketchSubscribeResult,
} from './sketch-wire.js';
export type { EventDefinition } from './catalog.js';
export { getEventsSettings } from './settings.js';
