/**
 * A transport wrapper that records every JSON-RPC message a client sends and
 * receives, so the tour can show what actually went over the wire.
 */
import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';

export interface WireEntry {
  readonly direction: 'sent' | 'received';
  readonly message: JSONRPCMessage;
}

/** What a JSON-RPC request or response looks like once parsed loosely. */
export interface LooseMessage {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

export class RecordingTransport implements Transport {
  readonly log: WireEntry[] = [];
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];
  readonly #inner: Transport;

  constructor(inner: Transport) {
    this.#inner = inner;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.#inner.hasPerRequestStream;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#inner.setSupportedProtocolVersions?.(versions);
  }

  async start(): Promise<void> {
    this.#inner.onmessage = (message, extra) => {
      this.log.push({ direction: 'received', message });
      this.onmessage?.(message, extra);
    };
    this.#inner.onclose = () => this.onclose?.();
    this.#inner.onerror = (error) => this.onerror?.(error);
    await this.#inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.log.push({ direction: 'sent', message });
    await this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** The last request sent with this method, and the response that answered it. */
  exchange(method: string): { request: LooseMessage; response: LooseMessage | undefined } | undefined {
    const sent = this.log.filter((entry) => entry.direction === 'sent').map((entry) => entry.message as LooseMessage);
    const request = sent.filter((message) => message.method === method && message.id !== undefined).at(-1);
    if (request === undefined) return undefined;
    const response = this.log
      .filter((entry) => entry.direction === 'received')
      .map((entry) => entry.message as LooseMessage)
      .find((message) => message.id === request.id && message.method === undefined);
    return { request, response };
  }
}
