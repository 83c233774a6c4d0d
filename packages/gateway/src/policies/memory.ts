/**
 * `@modelcontextprotocol/server-memory` (npm, read from 2026.8.31): deletions
 * are confirmed, every write is deduplicated, and the creations say how a
 * saga undoes them.
 */
import { READ_ONLY, type PolicyMap } from './policy-map.js';

export const MEMORY_POLICY: PolicyMap = {
  // Its result lists only the entities it created (existing names are skipped), so undoing deletes exactly those.
  create_entities: {
    idempotent: true,
    compensate: { tool: 'delete_entities', arguments: { entityNames: '$result.structuredContent.entities[*].name' } },
  },
  // Likewise: only the relations it added are in its result.
  create_relations: {
    idempotent: true,
    compensate: { tool: 'delete_relations', arguments: { relations: '$result.structuredContent.relations' } },
  },
  // A retry would append the same observations again.
  add_observations: { idempotent: true },
  // Takes the entities' relations with them, and the graph keeps no history.
  delete_entities: { confirm: { message: 'Delete {entityNames} from memory?', risk: 'destructive' }, idempotent: true },
  delete_observations: {
    confirm: { message: 'Delete these observations from memory: {deletions}?', risk: 'destructive' },
    idempotent: true,
  },
  delete_relations: {
    confirm: { message: 'Delete these relations from memory: {relations}?', risk: 'destructive' },
    idempotent: true,
  },
  read_graph: READ_ONLY,
  search_nodes: READ_ONLY,
  open_nodes: READ_ONLY,
};
