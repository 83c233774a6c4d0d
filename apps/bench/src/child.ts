/** A benchmark server in a child process, driven over the IPC channel: the parent's handle, and the child's side. */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Every message between the benchmark and a server process has a `type`; `stop` ends the child. */
export interface Message {
  readonly type: string;
}

/** The child's answer when it cannot start or serve a command. */
export interface Failure {
  readonly type: 'failed';
  readonly message: string;
}

/** A server in its own process, driven over the IPC channel: one command, one answer. */
export interface ChildServer<Command extends Message, Answer extends Message> {
  /** The child's first message, sent once it serves. */
  readonly ready: Answer;
  request(command: Command): Promise<Answer>;
  /** Sends `stop` and waits for the process to exit (killed after 10 s). */
  stop(): Promise<void>;
}

function nextMessage<Answer extends Message>(child: ChildProcess): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Answer | Failure): void => {
      child.off('exit', onExit);
      if (message.type === 'failed') reject(new Error(`server process: ${(message as Failure).message}`));
      else resolve(message as Answer);
    };
    const onExit = (code: number | null): void => {
      child.off('message', onMessage);
      reject(new Error(`server process exited (${String(code)})`));
    };
    child.once('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Starts `entry` (a built script next to this one) with `--expose-gc` so it
 * can collect garbage before reporting memory, and Node's other `flags`
 * (say, `--cpu-prof`), and waits for its first message. Commands are
 * answered in order, one at a time.
 */
export async function startChild<Command extends Message, Answer extends Message>(
  entry: URL,
  args: readonly string[],
  flags: readonly string[] = [],
): Promise<ChildServer<Command, Answer>> {
  const execArgv = ['--expose-gc', ...flags];
  const child = fork(entry, [...args], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let ready: Answer;
  try {
    ready = await nextMessage<Answer>(child);
  } catch (error) {
    child.kill();
    throw error;
  }
  return {
    ready,
    async request(command) {
      const answer = nextMessage<Answer>(child);
      child.send(command);
      return answer;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill(), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** In a child: sends one message to the parent. */
export function tell(message: Message & Readonly<Record<string, unknown>>): void {
  process.send?.(message);
}

/**
 * In a child: answers each command with `handle`, a failure as a `failed`
 * message, and on `stop` runs `close` and lets the process end.
 */
export function serveCommands(
  handle: (command: Message) => Promise<Message & Readonly<Record<string, unknown>>>,
  close: () => Promise<void>,
): void {
  process.on('message', (command: Message) => {
    if (command.type === 'stop') {
      close()
        .catch((error: unknown) => {
          console.error('bench server: closing failed', error);
        })
        .finally(() => {
          process.disconnect();
        });
      return;
    }
    handle(command).then(tell, (error: unknown) => {
      tell({
        type: 'failed',
        message: error instanceof Error ? (error.stack ?? error.message) : String(error),
      } satisfies Failure);
    });
  });
}

/** In a child: reports a failure to start and ends the process. */
export function failStart(error: unknown): void {
  tell({
    type: 'failed',
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  } satisfies Failure);
  process.exitCode = 1;
  process.disconnect();
}
