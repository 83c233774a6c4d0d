import fc from 'fast-check';
import { ConfigurationError } from '@ext/core';
import { describe, expect, it } from 'vitest';
import {
  accepted,
  base64Length,
  checkInputs,
  findBinaryInputs,
  inlineInput,
  isMediaRange,
  locateInput,
  matchesMediaRange,
  toolDeclaration,
  type BinaryInput,
} from './logic.js';
import { MULTIMODAL_ID, type MultimodalToolMeta } from './schema.js';

const png = (bytes: number): Record<string, unknown> => ({
  type: 'image',
  data: Buffer.alloc(bytes, 1).toString('base64'),
  mimeType: 'image/png',
});

describe('media types (MM-6)', () => {
  it('MM-6: ranges match by type, subtype wildcard or any, ignoring case and parameters', () => {
    expect(matchesMediaRange('image/png', 'image/png')).toBe(true);
    expect(matchesMediaRange('Image/PNG; q=1', 'image/png')).toBe(true);
    expect(matchesMediaRange('image/jpeg', 'image/*')).toBe(true);
    expect(matchesMediaRange('imagex/jpeg', 'image/*')).toBe(false);
    expect(matchesMediaRange('audio/wav', '*/*')).toBe(true);
    expect(matchesMediaRange('image/png', 'image/jpeg')).toBe(false);
    expect(accepted('text/csv', ['image/*', 'text/csv'])).toBe(true);
    expect(accepted('text/csv', [])).toBe(false);
    expect(isMediaRange('image/*')).toBe(true);
    expect(isMediaRange('*/png')).toBe(false);
    expect(isMediaRange('image')).toBe(false);
  });
});

describe('base64 sizes (MM-5, MM-7)', () => {
  it('MM-5: the decoded size is computed without decoding, for any bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(base64Length(Buffer.from(bytes).toString('base64'))).toBe(bytes.length);
      }),
    );
  });

  it('MM-7: text that is not canonical base64 has no size', () => {
    for (const text of ['abc', 'ab=c', '@@@@', 'YQ', 'YQ===']) expect(base64Length(text), text).toBeUndefined();
  });
});

describe('finding binary inputs (MM-3)', () => {
  it('MM-3: image, audio, blob and reference inputs at any depth, in document order, with pointers', () => {
    const reference = { ref_id: 'ref-1', origin_server: 'a', mime_type: 'image/png', size_bytes: 10 };
    const found = findBinaryInputs({
      image: png(3),
      nested: { list: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }, reference] },
      'a/b': { type: 'resource', resource: { uri: 'x:y', blob: 'AAAA' } },
      text: 'just text',
      lookalike: { type: 'image', data: 5 },
    });
    expect(found).toEqual({
      ok: true,
      inputs: [
        { pointer: '/arguments/image', kind: 'image', mimeType: 'image/png', sizeBytes: 3, data: 'AQEB' },
        { pointer: '/arguments/nested/list/0', kind: 'audio', mimeType: 'audio/wav', sizeBytes: 3, data: 'AAAA' },
        { pointer: '/arguments/nested/list/1', kind: 'reference', mimeType: 'image/png', sizeBytes: 10, reference },
        { pointer: '/arguments/a~1b', kind: 'blob', mimeType: 'application/octet-stream', sizeBytes: 3, data: 'AAAA' },
      ],
    });
  });

  it('MM-7: malformed base64 in an input is reported with its pointer', () => {
    expect(findBinaryInputs({ picture: { type: 'image', data: 'not base64!', mimeType: 'image/png' } })).toEqual({
      ok: false,
      pointer: '/arguments/picture',
      field: 'data',
      message: '/arguments/picture/data is not base64',
    });
  });

  it('MM-7: a value claiming to be a data reference that is not a valid one is reported with the pointer of the faulty field', () => {
    const reference = { ref_id: 'ref-1', origin_server: 'vision', mime_type: 'image/png' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...reference, ref_id: `ref-${'A'.repeat(300)}` }, 'ref_id'],
      [{ ...reference, ref_id: 7 }, 'ref_id'],
      [{ ...reference, origin_server: '' }, 'origin_server'],
      [{ ...reference, size_bytes: -1 }, 'size_bytes'],
      [{ ...reference, expires_at: 'tomorrow' }, 'expires_at'],
      [{ ...reference, checksum: { algorithm: 'sha256', value: 'not hex' } }, 'checksum.value'],
    ];
    for (const [image, field] of cases) {
      const found = findBinaryInputs({ image });
      expect(found, field).toMatchObject({ ok: false, field, pointer: `/arguments/image/${field.replace('.', '/')}` });
      expect(!found.ok && found.message, field).toContain(`/arguments/image/${field.replace('.', '/')}`);
    }
    // An object that does not carry all three fields of a reference claims nothing and is not a binary input.
    expect(findBinaryInputs({ note: { ref_id: 7, origin_server: 'vision' } })).toEqual({ ok: true, inputs: [] });
  });

  it('MM-10: an input read by value is located where the multimodal stage found it', () => {
    const reference = { ref_id: 'ref-1', origin_server: 'vision', mime_type: 'image/png' };
    const found = findBinaryInputs({ first: png(3), pictures: [reference] });
    const known = found.ok ? found.inputs : [];
    const asRead: BinaryInput = {
      pointer: '',
      kind: 'reference',
      mimeType: 'image/png',
      sizeBytes: undefined,
      reference: { ...reference },
    };
    expect(locateInput(asRead, known, '/arguments').pointer).toBe('/arguments/pictures/0');
    expect(locateInput({ ...asRead, reference: { ...reference, ref_id: 'ref-2' } }, known, '/arguments').pointer).toBe(
      '/arguments',
    );
    expect(
      locateInput(
        { pointer: '', kind: 'image', mimeType: 'image/png', sizeBytes: 3, data: 'AQEB' },
        known,
        '/arguments',
      ).pointer,
    ).toBe('/arguments/first');
  });

  it('MM-3: any JSON arguments are walked without throwing, in bounded work (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        const found = findBinaryInputs(args);
        expect(typeof found.ok).toBe('boolean');
      }),
    );
    const wide = { items: Array.from({ length: 50_000 }, () => 1) };
    expect(findBinaryInputs(wide)).toEqual({ ok: true, inputs: [] });
    let deep: Record<string, unknown> = png(1);
    for (let level = 0; level < 40; level++) deep = { deeper: deep };
    expect(findBinaryInputs(deep)).toEqual({ ok: true, inputs: [] });
  });
});

describe('declarations and checks (MM-2, MM-5, MM-6)', () => {
  const declared = (meta: unknown): MultimodalToolMeta | undefined =>
    toolDeclaration({ name: 'analyze', _meta: { [MULTIMODAL_ID]: meta } }, MULTIMODAL_ID, ['base64']);

  it('MM-2: a declaration is completed, and a malformed one is refused naming tool and field', () => {
    expect(declared({ input_types: ['image/png'], max_input_size_bytes: 10 })).toEqual({
      input_types: ['image/png'],
      output_types: [],
      max_input_size_bytes: 10,
      accepts_unlisted_types: false,
      binary_transport: ['base64'],
    });
    expect(declared({ output_types: ['application/json'] })?.accepts_unlisted_types).toBe(true);
    expect(toolDeclaration({ name: 'plain' }, MULTIMODAL_ID, ['base64'])).toBeUndefined();
    expect(() => declared({ input_types: ['png'] })).toThrow(ConfigurationError);
    expect(() => declared({ input_types: ['png'] })).toThrow(
      /tool "analyze": _meta\["io.github.mcp-ext\/multimodal"\]\.input_types must be an array of media types/,
    );
    expect(() => declared({ max_input_size_bytes: -1 })).toThrow(/max_input_size_bytes must be a non-negative integer/);
    expect(() => declared('image/png')).toThrow(/must be an object/);
  });

  const input = (mimeType: string, sizeBytes: number, pointer = '/arguments/x'): BinaryInput => ({
    pointer,
    kind: 'image',
    mimeType,
    sizeBytes,
  });

  it('MM-5: the total decoded size over the limit is PAYLOAD_TOO_LARGE, naming the largest input', () => {
    const meta = declared({ input_types: ['image/*'], max_input_size_bytes: 100 });
    expect(
      checkInputs([input('image/png', 60, '/arguments/a'), input('image/png', 40, '/arguments/b')], meta, undefined),
    ).toBeUndefined();
    const refusal = checkInputs(
      [input('image/png', 60, '/arguments/a'), input('image/png', 41, '/arguments/b')],
      meta,
      undefined,
    );
    expect(refusal?.toStructured()).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      category: 'invalid_input',
      details: { size_bytes: 101, max_size_bytes: 100, pointer: '/arguments/a' },
    });
    expect(checkInputs([input('image/png', 101)], undefined, 100)?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(checkInputs([input('image/png', 101)], declared({ max_input_size_bytes: 200 }), 100)).toBeUndefined();
  });

  it('MM-6: an unlisted type is UNSUPPORTED_MEDIA_TYPE unless the tool accepts unlisted types', () => {
    const strict = declared({ input_types: ['image/png', 'image/jpeg'] });
    expect(checkInputs([input('image/jpeg', 1)], strict, undefined)).toBeUndefined();
    expect(checkInputs([input('image/gif', 1)], strict, undefined)?.toStructured()).toMatchObject({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      category: 'invalid_input',
      details: { mime_type: 'image/gif', accepted_types: ['image/png', 'image/jpeg'], pointer: '/arguments/x' },
    });
    expect(
      checkInputs(
        [input('image/gif', 1)],
        declared({ input_types: ['image/png'], accepts_unlisted_types: true }),
        undefined,
      ),
    ).toBeUndefined();
  });

  it('MM-11: inline inputs are image, audio or blob content by media type', () => {
    expect(inlineInput(Buffer.from('ab'), 'image/png')).toEqual({ type: 'image', data: 'YWI=', mimeType: 'image/png' });
    expect(inlineInput(Buffer.from('ab'), 'audio/wav')).toEqual({ type: 'audio', data: 'YWI=', mimeType: 'audio/wav' });
    expect(inlineInput(Buffer.from('ab'), 'application/pdf')).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'application/pdf', blob: 'YWI=' },
    });
  });
});
