/** Shared expectations of the demo's tests: the extensions and tools the tracker serves. */

/** What the tracker serves, as the tests expect it (sorted). */
export const TRACKER_EXTENSIONS = [
  'io.github.mcp-ext/confirmation',
  'io.github.mcp-ext/content-negotiation',
  'io.github.mcp-ext/cost',
  'io.github.mcp-ext/data-references',
  'io.github.mcp-ext/discovery',
  'io.github.mcp-ext/errors',
  'io.github.mcp-ext/events',
  'io.github.mcp-ext/idempotency',
  'io.github.mcp-ext/intent',
  'io.github.mcp-ext/manifest',
  'io.github.mcp-ext/multimodal',
  'io.github.mcp-ext/permissions',
  'io.github.mcp-ext/provenance',
  'io.github.mcp-ext/session-state',
  'io.github.mcp-ext/streaming',
  'io.github.mcp-ext/tasks',
  'io.github.mcp-ext/transactions',
  'io.modelcontextprotocol/tasks',
];

export const TRACKER_TOOLS = [
  'attach_image',
  'close_ticket',
  'create_ticket',
  'delete_ticket',
  'export_report',
  'get_ticket',
  'link_document',
  'list_tickets',
  'post_message',
  'purge_closed_tickets',
  'set_view',
];
