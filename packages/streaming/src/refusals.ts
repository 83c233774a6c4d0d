/** The errors the server half answers with: a malformed `_meta` entry, a refused resume, a superseded execution. */
import { ExtensionError } from '@ext/core';
import { invalidInputError, metaPointer, type InputFault } from '@ext/core/kit';
import type { ResumeDecision } from './checkpoints.js';

/** The `_meta` entry did not validate. */
export function invalidMeta(fault: InputFault): ExtensionError {
  return invalidInputError(
    fault,
    fault.field === 'checkpoint_token'
      ? 'Send the checkpoint_token exactly as the server sent it, or leave it out to start over.'
      : 'Send an operation_id made of letters, digits and _-:. (1 to 128 characters).',
  );
}

/** A checkpoint token came for a tool that does not declare checkpoints. */
export function checkpointsUnsupported(tool: string, id: string): ExtensionError {
  return new ExtensionError(
    'invalid_input',
    'CHECKPOINTS_UNSUPPORTED',
    `Tool "${tool}" cannot be resumed from a checkpoint`,
    {
      suggestion: 'Call the tool without a checkpoint_token.',
      details: { field: 'checkpoint_token', pointer: metaPointer(id, 'checkpoint_token') },
    },
  );
}

const START_OVER = 'Call the tool again without a checkpoint_token to start the operation over.';

/** Why the checkpoint a call asks to resume from cannot be used. */
export function resumeRefusal(
  decision: Exclude<ResumeDecision, { kind: 'resume' }>,
  id: string,
  operationId: string,
): ExtensionError {
  const pointer = metaPointer(id, 'checkpoint_token');
  switch (decision.kind) {
    case 'not_found':
      return new ExtensionError(
        'invalid_input',
        'CHECKPOINT_NOT_FOUND',
        'No checkpoint is known for this checkpoint_token',
        {
          suggestion: START_OVER,
          details: { field: 'checkpoint_token', pointer, operation_id: operationId },
        },
      );
    case 'expired':
      return new ExtensionError('invalid_input', 'CHECKPOINT_EXPIRED', 'The checkpoint has expired', {
        suggestion: START_OVER,
        details: { field: 'checkpoint_token', pointer, operation_id: operationId },
      });
    case 'mismatch':
      return new ExtensionError(
        'invalid_input',
        'CHECKPOINT_MISMATCH',
        `The checkpoint belongs to another ${decision.field === 'arguments' ? 'set of arguments' : decision.field === 'tool' ? 'tool' : 'operation'}`,
        {
          suggestion: 'Resume with the same tool, arguments and operation_id as the call that sent the checkpoint.',
          details: { field: decision.field, pointer, operation_id: operationId },
        },
      );
    case 'unreadable':
      return new ExtensionError(
        'permanent',
        'CHECKPOINT_UNREADABLE',
        'The stored checkpoint cannot be read by this server',
        {
          suggestion: START_OVER,
          details: { operation_id: operationId },
        },
      );
  }
}

/** A resume of the same operation took over: this execution stops. */
export function superseded(operationId: string): ExtensionError {
  return new ExtensionError(
    'permanent',
    'OPERATION_SUPERSEDED',
    'A resumed call of this operation took over; this execution stopped',
    {
      suggestion: 'Follow the newer call of the operation; this one will produce no result.',
      details: { operation_id: operationId },
    },
  );
}
