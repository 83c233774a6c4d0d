/** The store contract on streams (append, read, trim, expiry) and on publish / subscribe. */
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../kit/canonical.js';
import { waitFor, type ContractRun } from './store-contract-support.js';

/** Streams: entries read back in order by cursor, paged, trimmed and expired. */
export function streamsContract({ store }: ContractRun): void {
  describe('streams', () => {
    it('reads an unknown stream as empty', async () => {
      expect(await store.read('nothing')).toEqual([]);
    });

    it('reads entries back in append order with the cursors append returned', async () => {
      const values: JsonValue[] = [{ n: 1 }, 'two', 3, null, [4]];
      const ids: string[] = [];
      for (const value of values) ids.push(await store.append('s', value));
      expect(new Set(ids).size).toBe(values.length);
      const entries = await store.read('s');
      expect(entries.map((entry) => entry.id)).toEqual(ids);
      expect(entries.map((entry) => entry.value)).toEqual(values);
    });

    it('`after` returns only entries strictly after the cursor', async () => {
      const ids: string[] = [];
      for (let index = 0; index < 6; index += 1) ids.push(await store.append('s', index));
      expect((await store.read('s', { after: ids[2] })).map((entry) => entry.value)).toEqual([3, 4, 5]);
      expect(await store.read('s', { after: ids[5] })).toEqual([]);
    });

    it('`limit` caps a page, and paging by cursor visits every entry once', async () => {
      for (let index = 0; index < 7; index += 1) await store.append('s', index);
      const seen: JsonValue[] = [];
      let after: string | undefined;
      // Bounded, so a store whose cursor does not advance fails instead of looping.
      for (let pages = 0; pages < 10; pages += 1) {
        const page = await store.read('s', { after, limit: 3 });
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page.map((entry) => entry.value));
        after = page.at(-1)!.id;
      }
      expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6]);
    });

    it('returns at most 100 entries by default', async () => {
      await Promise.all(Array.from({ length: 120 }, (_, index) => store.append('s', index)));
      expect(await store.read('s')).toHaveLength(100);
    });
  });
}

/** Streams trimmed, kept apart, appended to at once, copied and expired. */
export function streamLimitsContract({ store, timeoutMs, slow }: ContractRun): void {
  describe('streams: trimming, isolation and expiry', () => {
    it('`maxLength` trims the oldest entries, and older cursors still page', async () => {
      const ids: string[] = [];
      for (let index = 0; index < 10; index += 1) ids.push(await store.append('s', index, { maxLength: 3 }));
      expect((await store.read('s')).map((entry) => entry.value)).toEqual([7, 8, 9]);
      expect((await store.read('s', { after: ids[1] })).map((entry) => entry.value)).toEqual([7, 8, 9]);
      expect((await store.read('s', { after: ids[7] })).map((entry) => entry.value)).toEqual([8, 9]);
    });

    it('keeps streams apart', async () => {
      await store.append('one', 'a');
      await store.append('two', 'b');
      expect((await store.read('one')).map((entry) => entry.value)).toEqual(['a']);
      expect((await store.read('two')).map((entry) => entry.value)).toEqual(['b']);
    });

    it('gives 50 concurrent appends distinct cursors, read back in cursor order', async () => {
      const ids = await Promise.all(Array.from({ length: 50 }, (_, index) => store.append('s', index)));
      expect(new Set(ids).size).toBe(50);
      const entries = await store.read('s');
      expect(new Set(entries.map((entry) => entry.id))).toEqual(new Set(ids));
      for (const [position, entry] of entries.entries()) {
        const rest = await store.read('s', { after: entry.id });
        expect(rest.map((later) => later.id)).toEqual(entries.slice(position + 1).map((later) => later.id));
      }
    });

    it('returns copies of entries', async () => {
      const value = { list: [1] };
      await store.append('s', value);
      value.list.push(2);
      const [entry] = await store.read('s');
      (entry!.value as { list: number[] }).list.push(3);
      expect((await store.read('s'))[0]!.value).toEqual({ list: [1] });
    });

    it('expires the whole stream ttlMs after the last append', slow, async () => {
      await store.append('s', 1, { ttlMs: 100 });
      await store.append('kept', 1);
      await waitFor(async () => (await store.read('s')).length === 0, timeoutMs, 'the stream to expire');
      expect(await store.read('kept')).toHaveLength(1);
      // An expired stream starts afresh.
      await store.append('s', 2);
      expect((await store.read('s')).map((entry) => entry.value)).toEqual([2]);
    });

    it('delete removes a stream', async () => {
      await store.append('s', 1);
      expect(await store.delete('s')).toBe(true);
      expect(await store.read('s')).toEqual([]);
    });
  });
}

/** Publish / subscribe: every subscriber gets its own copy of each message, in order, until it unsubscribes. */
export function publishSubscribeContract({ store, timeoutMs, slow }: ContractRun): void {
  describe('publish / subscribe', () => {
    it('delivers to every subscriber of the channel, in publish order, and to no other channel', slow, async () => {
      const first: JsonValue[] = [];
      const second: JsonValue[] = [];
      const other: JsonValue[] = [];
      await store.subscribe('news', (message) => first.push(message));
      await store.subscribe('news', (message) => second.push(message));
      await store.subscribe('other', (message) => other.push(message));
      const sent: JsonValue[] = [{ n: 1 }, 'two', 3, null, [true]];
      for (const message of sent) await store.publish('news', message);
      await waitFor(() => first.length === sent.length && second.length === sent.length, timeoutMs, 'delivery');
      expect(first).toEqual(sent);
      expect(second).toEqual(sent);
      expect(other).toEqual([]);
    });

    it('publishing with no subscriber is fine', async () => {
      await expect(store.publish('empty', 'nobody listens')).resolves.toBeUndefined();
    });

    it('stops delivering after unsubscribe', slow, async () => {
      const dropped: JsonValue[] = [];
      const kept: JsonValue[] = [];
      const unsubscribe = await store.subscribe('c', (message) => dropped.push(message));
      await store.subscribe('c', (message) => kept.push(message));
      await store.publish('c', 'before');
      await waitFor(() => dropped.length === 1 && kept.length === 1, timeoutMs, 'the first message');
      await unsubscribe();
      await unsubscribe();
      await store.publish('c', 'after');
      // The subscriber still listening sees "after"; anything the dropped one would get arrives no later.
      await waitFor(() => kept.length === 2, timeoutMs, 'the second message');
      await store.publish('c', 'flush');
      await waitFor(() => kept.length === 3, timeoutMs, 'the third message');
      expect(dropped).toEqual(['before']);
      expect(kept).toEqual(['before', 'after', 'flush']);
    });

    it('gives each subscriber its own copy of a message', slow, async () => {
      const received: JsonValue[] = [];
      await store.subscribe('c', (message) => {
        (message as { list: number[] }).list.push(99);
        received.push(message);
      });
      await store.subscribe('c', (message) => received.push(message));
      const message = { list: [1] };
      await store.publish('c', message);
      message.list.push(2);
      await waitFor(() => received.length === 2, timeoutMs, 'delivery');
      expect(received).toContainEqual({ list: [1] });
      expect(received).toContainEqual({ list: [1, 99] });
    });
  });
}
