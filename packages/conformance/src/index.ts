/** `@ext/conformance`: run the checks against a server, report the outcome, and the types checks are written against. */
export { runConformance } from './runner.js';
export type { RunOptions, RunOutcome } from './runner.js';
export type { Target, Probe, ProbeProfile } from './probe.js';
export { renderTable, toConformanceReport } from './report.js';
export { ensure } from './assert.js';
export { ALL_SUITES } from './checks/index.js';
export type {
  Check,
  CheckContext,
  CheckResult,
  CheckStatus,
  ExtensionSuite,
  ListedTool,
  RequirementLevel,
  ServerFacts,
} from './types.js';
