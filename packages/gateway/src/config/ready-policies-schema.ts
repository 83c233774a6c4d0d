/** The schema of `policies`: the ready policies a config chooses, by name. */
import Type from 'typebox';
import { READY_POLICY_NAMES, type ReadyPolicyName } from '../policies/index.js';

/** One of the names, as `"filesystem"`, ... (a union of literals, so that errors list them; typed by the names). */
const ReadyPolicyNameSchema = Type.Unsafe<ReadyPolicyName>(
  Type.Union(READY_POLICY_NAMES.map((name) => Type.Literal(name))),
);

export const ReadyPoliciesSchema = Type.Array(ReadyPolicyNameSchema, {
  description:
    'Ready policies shipped for popular MCP servers, by name; each applies to the upstream tools of the names it lists, before `manifests` and `policy`, which win field by field.',
});
