// The official conformance CLIs from 0.1.16 on need Node 22 or newer (they import `fs.globSync`).
import { node24Binary } from '@ext/node24';

/**
 * A Node that runs the official suite's CLI: this one from 22 on, else the
 * Node 24 of `@ext/node24` (tools/node24). The test and the server under
 * test run on whatever Node runs the tests.
 */
export function nodeForConformance(): string {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (node24Binary === undefined)
    throw new Error(
      'The official conformance suite needs Node 22 or newer: run the tests on it, or on linux-x64 where @ext/node24 provides it',
    );
  return node24Binary;
}
