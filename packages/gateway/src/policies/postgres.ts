/** `@modelcontextprotocol/server-postgres` (npm, read from 0.6.2): one tool, meant to be read-only. */
import type { PolicyMap } from './policy-map.js';

export const POSTGRES_POLICY: PolicyMap = {
  query: {
    // The upstream runs the SQL inside `BEGIN TRANSACTION READ ONLY`, but sends it as one string
    // that may hold several statements: `COMMIT; DROP TABLE ...` ends that transaction and writes.
    // A query with a second statement is shown to a person first.
    confirm: {
      when: 'args.sql.matches(";\\\\s*\\\\S")',
      message: 'Run SQL with more than one statement (it can end the read-only transaction)? {sql}',
      risk: 'destructive',
    },
    idempotent: false,
    // Every query holds a connection of the database: bounded per caller.
    cost: { unit: 'queries', latency: 'seconds', rateLimit: { perMinute: 60 } },
  },
};
