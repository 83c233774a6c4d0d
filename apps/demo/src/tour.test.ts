import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TOUR = fileURLToPath(new URL('../dist/tour.js', import.meta.url));

function runTour(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOUR, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', TRACKER_EXPORT_PACE_MS: '0' },
    });
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

const HEADINGS = [
  '== 1. Negotiation ==',
  '== 2. A normal call ==',
  '== 3. A structured error ==',
  '== 4. Degradation ==',
  '== 5. Content negotiation ==',
  '== 6. Session state ==',
  '== 7. Permissions ==',
  '== 8. Intent ==',
  '== 9. Confirmation ==',
  '== 10. A saga ==',
  '== 11. Provenance ==',
  '== 12. Streaming and cost ==',
  '== 13. Manifest ==',
  '== 14. Events ==',
  '== 15. Data references ==',
  '== 16. Multimodal ==',
  '== 17. Discovery ==',
  '== 18. Two users ==',
  '== 19. Tasks ==',
  '== 20. A gateway ==',
];

describe('the tour', () => {
  for (const [how, args] of [
    ['over HTTP on SDK v2', []],
    ['over stdio on SDK v2', ['--stdio']],
    ['over HTTP on SDK v1 (--sdk v1)', ['--sdk', 'v1']],
    ['over stdio on SDK v1 (--sdk v1 --stdio)', ['--sdk', 'v1', '--stdio']],
  ] as const) {
    it(`runs every step to exit code 0 ${how}`, async () => {
      const { code, stdout, stderr } = await runTour(args);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      for (const heading of HEADINGS) expect(stdout).toContain(heading);
      if (how.includes('HTTP')) {
        expect(stdout).toContain("the same call with alice's token: CONFIRMATION_PRINCIPAL_MISMATCH");
        expect(stdout).toContain("list_tickets with alice's session state: SESSION_STATE_INVALID");
      } else {
        expect(stdout).toContain('there is no second caller to show');
      }
      if (how === 'over HTTP on SDK v2') {
        // Polled with tasks/get, the progress in _meta; cancelled; taken up again by the restarted server.
        expect(stdout).toMatch(/tasks\/get {9}working "row \d+ of 16" \{"done":\d+,"total":16,/);
        expect(stdout).toMatch(/tasks\/get {9}completed, the result inlined: report R-\d+: 16 rows/);
        expect(stdout).toContain('tasks/get         cancelled');
        expect(stdout).toMatch(/SIGKILL to pid \d+ mid-export/);
        expect(stdout).toMatch(
          /"resumed":true,"executions":2\}\n[\s\S]*completed, the result inlined: report R-\d+: 16 rows/,
        );
      } else if (how.includes('SDK v1')) {
        expect(stdout).toContain('which the v1 SDK does not speak: run the tour on v2');
      } else {
        expect(stdout).toContain('run the tour over HTTP to see it');
      }
      if (how.includes('SDK v1')) {
        expect(stdout).toContain('on SDK v1 (@modelcontextprotocol/sdk)');
        expect(stdout).toContain('every client below uses initialize');
        expect(stdout).not.toContain('Protocol 2026-07-28');
      } else {
        expect(stdout).toContain('Protocol 2026-07-28');
      }
      expect(stdout).toMatch(/Legacy era \(2025-/);
      expect(stdout).toMatch(/1\. errors\s+@ext\/errors/);
      expect(stdout).toContain('"code": "RESOURCE_NOT_FOUND"');
      expect(stdout).toContain('category "permanent"');
      expect(stdout).toMatch(/\d+\. content-negotiation\s+@ext\/content-negotiation/);
      expect(stdout).toContain('declares {"version":"1.0","features":["human"]}');
      expect(stdout).toMatch(/### T-\d+: Render me twice/);
      expect(stdout).toContain('SCOPE_INSUFFICIENT (auth_required)');
      expect(stdout).toContain('"recommended_tool":"list_tickets"');
      expect(stdout).toContain('"status":"confirmed"');
      expect(stdout).toMatch(/rollback\s+\[\{"step_id":"step-2","status":"compensated","tool":"link_document"\}/);
      // Not a terminal: the progress bar is drawn once, full.
      expect(stdout).toMatch(/progress\s+\[#{30}\] 100% row (\d+) of \1/);
      expect(stdout).toContain('"units_used":1');
      expect(stdout).toContain('needs a person\'s approval: ["delete_ticket"]; metered or costly: ["export_report"]');
      // Key order depends on the store (SQLite sorts them): match the fields one by one.
      expect(stdout).toMatch(
        /server -> client {2}ticket_created \{(?=[^\n]*"title":"Watch me")(?=[^\n]*"status":"open")/,
      );
      expect(stdout).toMatch(
        /server -> client {2}ticket_closed \{(?=[^\n]*"title":"Watch me")(?=[^\n]*"status":"closed")/,
      );
      expect(stdout).toMatch(/sheets -> client {2}\{"status":"imported","imported_resource_id":"ref-/);
      expect(stdout).toContain('PUT 70 raw bytes to the upload URL');
      expect(stdout).toContain('"via":"reference"');
      expect(stdout).toContain('UNSUPPORTED_MEDIA_TYPE (invalid_input)');
      expect(stdout).toMatch(/server -> client {2}Sheets \(demo\) \[io\.github\.mcp-ext\/demo-sheets\] \(high\)/);
      // The gateway: approval with the path filled in, a replayed retry, a flood stopped by the quota.
      expect(stdout).toContain('gateway -> client confirmation_required (destructive): "Write plan.md?"');
      expect(stdout).toContain('"idempotency_key":"tour-write-plan-1","was_replay":true');
      expect(stdout).toContain('without asking again: a replay runs nothing');
      expect(stdout).toMatch(/\d+ written; \d+ refused: QUOTA_EXHAUSTED \(rate_limited\), retry_after_seconds \d+/);
      expect(stdout).toContain('Tour complete');
      expect(stdout).not.toContain('\u001b[');
    });
  }

  it('refuses an unknown SDK line', async () => {
    const { code, stderr } = await runTour(['--sdk', 'v3']);
    expect(code, stderr).toBe(2);
    expect(stderr).toContain('--sdk must be v1 or v2');
  });
});
