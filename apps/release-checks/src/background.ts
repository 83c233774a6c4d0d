// A long-running program for a check (a server): started, awaited until it prints a line, stopped.
import { spawn } from 'node:child_process';
import { childEnv } from './run.js';

export interface StartOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Resolves once the program's stdout matches this. */
  readonly ready: RegExp;
  /** Fails (and kills the program) when it is not ready after this long. Default 30 s. */
  readonly timeoutMs?: number | undefined;
}

export interface Started {
  /** What matched `ready`. */
  readonly ready: RegExpExecArray;
  /** Everything the program printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Kills the program and resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts `command` and resolves once its stdout matches `options.ready`; rejects with its output if it exits first. */
export function startProgram(command: string, args: readonly string[], options: StartOptions): Promise<Started> {
  const child = spawn(command, [...args], { cwd: options.cwd, env: childEnv(options.env), stdio: 'pipe' });
  child.stdin.end();
  let output = '';
  let stdout = '';
  // A program that could not start emits 'error' and may never emit 'close'.
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      resolve();
    });
    child.once('error', () => {
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().then(() => {
        reject(new Error(`\`${command} ${args.join(' ')}\` ${why}\n--- output\n${output}`));
      });
    };
    const timer = setTimeout(() => {
      fail(`did not print ${String(options.ready)} in ${timeoutMs} ms`);
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      stdout += chunk.toString('utf8');
      const ready = settled ? null : options.ready.exec(stdout);
      if (ready === null) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ready, output: () => output, stop });
    });
    child.once('error', (error) => {
      fail(`could not start: ${error.message}`);
    });
    child.once('close', (code, signal) => {
      fail(`exited (${String(code ?? signal)}) before it was ready`);
    });
  });
}
