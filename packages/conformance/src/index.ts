export { runConformance } from './runner.js';
export { main as runCli } from './cli-main.js';
export type { CliIo } from './cli-main.js';
export type { RunOptions, RunOutcome } from './runner.js';
export { connectProbe } from './probe.js';
export type { Target, Probe, ProbeProfile, ConnectOptions } from './probe.js';
export { renderTable, toConformanceReport, SUITE_VERSION } from './report.js';
export { parseExpectedFailures } from './expected.js';
export { ensure } from './assert.js';
export { sampleArguments, invalidArguments, safeTools, firstText } from './tools.js';
export {
  ALL_SUITES,
  baseSuite,
  confirmationSuite,
  contentNegotiationSuite,
  costSuite,
  dataReferencesSuite,
  discoverySuite,
  errorsSuite,
  eventsSuite,
  idempotencySuite,
  intentSuite,
  manifestSuite,
  multimodalSuite,
  permissionsSuite,
  provenanceSuite,
  sessionStateSuite,
  streamingSuite,
  transactionsSuite,
} from './checks/index.js';
export { OFFICIAL_EXTENSIONS } from './checks/base.js';
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
