import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALL_SUITES } from './index.js';

const repoFile = (path: string): string =>
  readFileSync(fileURLToPath(new URL(`../../../../${path}`, import.meta.url)), 'utf8');

describe('the suites (KIT-4)', () => {
  it('give every check a unique id <extension>/<slug>', () => {
    const ids = ALL_SUITES.flatMap((suite) => suite.checks.map((check) => check.id));
    expect(new Set(ids).size).toBe(ids.length);
    for (const suite of ALL_SUITES) {
      for (const check of suite.checks) expect(check.id).toMatch(new RegExp(`^${suite.extension}/[a-z0-9-]+$`));
    }
  });

  it.each(ALL_SUITES.map((suite) => [suite.extension, suite] as const))(
    '%s cites only requirements its SPEC.md numbers',
    (_name, suite) => {
      const spec = repoFile(suite.spec);
      for (const check of suite.checks) {
        expect(check.requirement).toMatch(/^[A-Z]+-\d+$/);
        // A check may cite the draft a SPEC.md follows (`Followed draft: SEP-2848 ...`) where the draft itself says MUST.
        if (check.requirement.startsWith('SEP-')) {
          expect(spec, `${check.id} cites ${check.requirement}`).toMatch(
            new RegExp(`Followed draft: ${check.requirement}\\b`),
          );
          continue;
        }
        // Requirements are numbered `**XYZ-1**` (packages/tasks/SPEC.md writes `**TASK-1.**`).
        expect(spec, `${check.id} cites ${check.requirement}`).toMatch(
          new RegExp(`\\*\\*${check.requirement}\\.?\\*\\*`),
        );
      }
    },
  );
});
