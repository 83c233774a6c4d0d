// The command runner the checks rely on: a timeout is told apart from a failure, so only stalls are retried.
import { describe, expect, it } from 'vitest';
import { TimedOut, run } from './run.js';

describe('run', () => {
  it('rejects with TimedOut when the command outlives its timeout', async () => {
    const outcome = run(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { cwd: '.', timeoutMs: 200 });
    await expect(outcome).rejects.toBeInstanceOf(TimedOut);
    await expect(outcome).rejects.toThrow(/killed \(SIGKILL, timeout 200 ms\)/);
  });

  it('rejects with a plain Error, not TimedOut, when the command fails on its own', async () => {
    const outcome = run(process.execPath, ['-e', 'process.exit(3)'], { cwd: '.', timeoutMs: 60_000 });
    await expect(outcome).rejects.toThrow(/exited with 3/);
    await expect(outcome).rejects.not.toBeInstanceOf(TimedOut);
  });
});
