/**
 * How every demo server's entry point ends: it closes what it started on
 * SIGINT or SIGTERM (and, over stdio, when the host closes stdin), once,
 * then exits 0, or 1 if closing failed.
 */
export function closeOnStop(
  label: string,
  close: () => Promise<void>,
  options: { readonly announce?: boolean; readonly stdin?: boolean } = {},
): void {
  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    if (options.announce === true) console.error(`${label}: ${reason} received, shutting down`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`${label}: shutdown failed`, error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => {
    stop('SIGINT');
  });
  process.once('SIGTERM', () => {
    stop('SIGTERM');
  });
  // The host closing our stdin is the usual way a stdio server is told to stop.
  if (options.stdin === true) {
    process.stdin.once('end', () => {
      stop('end of input');
    });
  }
}

/** Runs an entry point's `main`; a failure to start is one line on stderr and exit code 1. */
export function runMain(label: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(`${label}:`, error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
