/** `mcp-server-fetch` (PyPI, read from 2026.10.24): one tool that reads the web. */
import { READ_ONLY, type PolicyMap } from './policy-map.js';

export const FETCH_POLICY: PolicyMap = {
  // Reads only (the server itself refuses private and loopback addresses), but each call reaches
  // another site from this machine: rate-limited so a looping agent cannot hammer one.
  fetch: {
    ...READ_ONLY,
    cost: { unit: 'fetches', latency: 'seconds', rateLimit: { perMinute: 20, perHour: 300 } },
  },
};
