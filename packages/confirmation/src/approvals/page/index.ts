/**
 * The approvals page: a fetch handler where an operator signs in with an
 * API key or access token and approves or denies the calls held on the
 * desk, live, with their audit trail; and the JSON API it (or a CLI) uses.
 */
export { approvalsPage, type ApprovalsPage } from './handler.js';
export type { ApprovalsPageOptions, PageCaller } from './options.js';
