#!/usr/bin/env node
/** The executable: runs the command line and exits with its code. */
import { main } from './cli-main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 2;
  },
);
