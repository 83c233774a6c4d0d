/** The README's library use: the checks run from code, the table printed and the seed report written. */
// #region library
import { writeFile } from 'node:fs/promises';
import { renderTable, runConformance, toConformanceReport } from '@ext/conformance';

const outcome = await runConformance({
  target: { kind: 'stdio', command: 'node', args: ['dist/server.js'] },
  protocolVersion: '2026-07-28',
  allowEffects: true,
});
console.log(renderTable(outcome));
await writeFile('conformance-report.json', JSON.stringify(toConformanceReport(outcome), null, 2));
process.exitCode = outcome.exitCode;
// #endregion library
