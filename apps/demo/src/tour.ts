#!/usr/bin/env node
/**
 * A guided tour for newcomers: starts the tracker (Streamable HTTP in this
 * process, or with `--stdio` the stdio server as a child; `--sdk v1` picks
 * the server built on the v1 SDK), then scripted clients show each extension in
 * turn: what the client sent, what came back, and what it means.
 * Exits 0 when every step behaved as described, 1 otherwise.
 * Each step lives in `tour/`, named after what it shows; `tour/steps.ts` runs them in order.
 */
import { runTour } from './tour/run.js';

// Compiled, this file is `dist/tour.js`: the programs the tour starts sit beside it, the gateway's configuration above.
runTour(process.argv.slice(2), {
  http: new URL('./http.js', import.meta.url),
  stdio: new URL('./stdio.js', import.meta.url),
  stdioV1: new URL('./stdio-v1.js', import.meta.url),
  gatewayConfig: new URL('../gateway.yaml', import.meta.url),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error('tour failed:', error);
    process.exitCode = 1;
  },
);
