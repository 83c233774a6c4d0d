/** What the package's end-to-end tests share: a gated tool that records what really ran, and a store whose records can expire mid-call. */
import { MemoryStore, type ExtendedServer, type ToolResult } from '@ext/core';
import type { JsonValue } from '@ext/core/kit';
import * as z from 'zod';
import { CONFIRMATION_ID } from '../index.js';

/** Registers `delete_repo` (destructive, "Delete {repo}?"), which pushes each repo it deletes to `ran`. */
export function deleteRepoTool(ran: string[]): (server: ExtendedServer) => void {
  return (server) => {
    server.registerTool(
      'delete_repo',
      {
        inputSchema: z.object({ repo: z.string() }),
        _meta: { [CONFIRMATION_ID]: { risk_level: 'destructive', confirmation_message: 'Delete {repo}?' } },
      },
      (args): ToolResult => {
        ran.push(args.repo);
        return { content: [{ type: 'text', text: `deleted ${args.repo}` }] };
      },
    );
  };
}

/** A store that, once told to, forgets an idempotency record right after it is read: a record expiring mid-call. */
export class ForgetfulStore extends MemoryStore {
  forgetNextRecord = false;

  override async get(key: string): Promise<JsonValue | undefined> {
    const value = await super.get(key);
    if (this.forgetNextRecord && key.includes(':rec:')) {
      this.forgetNextRecord = false;
      await this.delete(key);
    }
    return value;
  }
}
