import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TOUR = fileURLToPath(new URL('../dist/tour.js', import.meta.url));

function runTour(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOUR, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

describe('the tour', () => {
  for (const args of [[], ['--stdio']] as const) {
    it(`runs to exit code 0 ${args.length === 0 ? 'over HTTP' : 'over stdio'}`, async () => {
      const { code, stdout, stderr } = await runTour(args);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      for (const heading of ['== 1. Negotiation ==', '== 2. A normal call ==', '== 3. A structured error ==', '== 4. Degradation ==', '== 5. Content negotiation ==']) {
        expect(stdout).toContain(heading);
      }
      expect(stdout).toContain('Protocol 2026-07-28');
      expect(stdout).toMatch(/Legacy era \(2025-/);
      expect(stdout).toMatch(/1\. errors\s+@ext\/errors/);
      expect(stdout).toContain('"code": "RESOURCE_NOT_FOUND"');
      expect(stdout).toContain('category "permanent"');
      expect(stdout).toMatch(/\d+\. content-negotiation\s+@ext\/content-negotiation/);
      expect(stdout).toContain('declares {"version":"1.0","features":["human"]}');
      expect(stdout).toMatch(/### T-\d+: Render me twice/);
      expect(stdout).toContain('Tour complete');
      expect(stdout).not.toContain('\u001b[');
    });
  }
});
