/**
 * `@modelcontextprotocol/server-everything` (npm, read from 2026.8.31), the
 * protocol's test server: the tools it offers a client that declares no
 * capabilities, as the gateway connects. Its tools demonstrate features and
 * change nothing outside the server, so nothing is confirmed.
 */
import { READ_ONLY, type PolicyMap } from './policy-map.js';

/** Flips a switch of the server: a retry without a key would flip it back. */
const TOGGLE = { confirm: false, idempotent: true } as const;

export const EVERYTHING_POLICY: PolicyMap = {
  // Returns the server's whole environment: secrets included. Hidden; a policy entry can offer it again.
  'get-env': { hidden: true },
  // Downloads any URL it is given, from this machine.
  'gzip-file-as-resource': {
    confirm: false,
    idempotent: true,
    cost: { unit: 'downloads', latency: 'seconds', rateLimit: { perMinute: 10 } },
  },
  // Runs for as long as it is asked to (10 seconds by default), reporting progress.
  'trigger-long-running-operation': { ...READ_ONLY, cost: { latency: 'seconds', rateLimit: { perMinute: 10 } } },
  'simulate-research-query': { confirm: false, idempotent: true, cost: { latency: 'seconds' } },
  'toggle-simulated-logging': TOGGLE,
  'toggle-subscriber-updates': TOGGLE,
  echo: READ_ONLY,
  'get-annotated-message': READ_ONLY,
  'get-resource-links': READ_ONLY,
  'get-resource-reference': READ_ONLY,
  'get-structured-content': READ_ONLY,
  'get-sum': READ_ONLY,
  'get-tiny-image': READ_ONLY,
};
