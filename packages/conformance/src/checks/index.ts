/** Every suite the kit ships, in the order they run. */
import type { ExtensionSuite } from '../types.js';
import { baseSuite } from './base.js';
import { confirmationSuite } from './confirmation.js';
import { contentNegotiationSuite } from './content-negotiation.js';
import { costSuite } from './cost.js';
import { dataReferencesSuite } from './data-references.js';
import { discoverySuite } from './discovery.js';
import { errorsSuite } from './errors.js';
import { eventsSketchSuite } from './events-sketch.js';
import { eventsSuite } from './events.js';
import { idempotencySuite } from './idempotency.js';
import { intentSuite } from './intent.js';
import { manifestSuite } from './manifest.js';
import { multimodalSuite } from './multimodal.js';
import { permissionsSuite } from './permissions.js';
import { provenanceSuite } from './provenance.js';
import { sessionStateSuite } from './session-state.js';
import { streamingSuite } from './streaming.js';
import { tasksSuite } from './tasks.js';
import { toolApprovalSuite } from './tool-approval.js';
import { transactionsSuite } from './transactions.js';

/**
 * Every suite this kit ships, base first. Adding an extension: write
 * `checks/<name>.ts` exporting an `ExtensionSuite` whose checks cite the
 * numbered requirements of that package's SPEC.md, add it here, and plant a
 * violation of one of its MUSTs in the broken fixture server.
 */
export const ALL_SUITES: readonly ExtensionSuite[] = [
  baseSuite,
  errorsSuite,
  idempotencySuite,
  transactionsSuite,
  confirmationSuite,
  permissionsSuite,
  contentNegotiationSuite,
  sessionStateSuite,
  intentSuite,
  provenanceSuite,
  costSuite,
  streamingSuite,
  eventsSuite,
  eventsSketchSuite,
  manifestSuite,
  dataReferencesSuite,
  multimodalSuite,
  discoverySuite,
  tasksSuite,
  toolApprovalSuite,
];
