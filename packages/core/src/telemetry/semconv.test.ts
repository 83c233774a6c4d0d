import { describe, expect, it } from 'vitest';
import { ErrorCodes, ExtensionError, WireError } from '../contract/errors.js';
import { clientCallOutcome, errorClass, methodOutcome, operationName, toolCallOutcome } from './semconv.js';

describe('MCP semantic conventions', () => {
  it('names an operation `{mcp.method.name} {target}`', () => {
    expect(operationName('tools/call', 'get_ticket')).toBe('tools/call get_ticket');
    expect(operationName('io.github.mcp-ext/transactions/begin', undefined)).toBe(
      'io.github.mcp-ext/transactions/begin',
    );
  });

  it('tools/call: success, an isError result, a thrown error (answered as isError), a JSON-RPC error', () => {
    expect(toolCallOutcome({ content: [] }, undefined)).toEqual({});
    expect(toolCallOutcome({ content: [], isError: true }, undefined)).toEqual({ errorType: 'tool_error' });
    expect(toolCallOutcome(undefined, new Error('x'))).toEqual({ errorType: 'tool_error' });
    expect(toolCallOutcome(undefined, new WireError(-32021, 'missing'))).toEqual({
      errorType: '-32021',
      statusCode: '-32021',
      message: 'missing',
    });
  });

  it('methods: the JSON-RPC error the client gets', () => {
    expect(methodOutcome(undefined)).toEqual({});
    expect(methodOutcome(new ExtensionError('invalid_input', 'BAD', 'bad'))).toMatchObject({
      errorType: String(ErrorCodes.InvalidParams),
    });
    expect(methodOutcome(new ExtensionError('transient', 'LATER', 'later'))).toMatchObject({
      errorType: String(ErrorCodes.ExtensionFailure),
    });
    expect(methodOutcome(new Error('x'))).toEqual({
      errorType: '-32603',
      statusCode: '-32603',
      message: 'Internal error',
    });
  });

  it('client side: transport failures by class', () => {
    expect(clientCallOutcome({ isError: true }, undefined)).toEqual({ errorType: 'tool_error' });
    expect(clientCallOutcome(undefined, Object.assign(new Error('t'), { name: 'TimeoutError' }))).toEqual({
      errorType: 'TimeoutError',
    });
    expect(clientCallOutcome({ content: [] }, undefined)).toEqual({});
  });

  it('classes thrown values by code or class name, never by message, and never throws', () => {
    expect(errorClass(new WireError(-32602, 'x'))).toBe('-32602');
    expect(errorClass(new ExtensionError('auth_required', 'PERMISSION_DENIED', 'no'))).toBe('PERMISSION_DENIED');
    expect(errorClass(new TypeError('x'))).toBe('TypeError');
    expect(errorClass(Object.assign(new Error('x'), { name: 'has spaces and /paths' }))).toBe('_OTHER');
    expect(errorClass('a string')).toBe('_OTHER');
    expect(
      errorClass(
        new Proxy(
          {},
          {
            getPrototypeOf: () => {
              throw new Error('no');
            },
          },
        ),
      ),
    ).toBe('_OTHER');
  });
});
