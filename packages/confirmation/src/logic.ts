/**
 * The pure logic of a tool's gate: what its author declared, the gate a call
 * must pass, and what a person is shown and asked. No I/O here.
 */
import { canonicalHash, isRecord, type ApprovalRequirement } from '@ext/core/kit';
import { ConfigurationError, type ToolInfo } from '@ext/core';
import { displayText } from './display.js';
import { RISK_LEVELS, TOKEN_PATTERN_SOURCE, type ConfirmationToolMeta, type RiskLevel } from './schema.js';

/** Longest rendering of one argument inside a confirmation message. */
export const MAX_PLACEHOLDER_LENGTH = 200;

const TOKEN_PATTERN = new RegExp(TOKEN_PATTERN_SOURCE);
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The gate of one tool, normalized from what its author wrote in `Tool._meta[id]`. */
export interface ToolGate {
  readonly requiresConfirmation: boolean;
  readonly riskLevel: RiskLevel;
  /** The author's template, `{param}` placeholders unfilled; absent = a generated message. */
  readonly message: string | undefined;
}

/** Whether `value` names one of the risk levels. */
export function isRiskLevel(value: unknown): value is RiskLevel {
  return typeof value === 'string' && (RISK_LEVELS as readonly string[]).includes(value);
}

/**
 * Reads and checks the author's `Tool._meta[id]` (CONF-1, CONF-2, CONF-3).
 * `undefined` when the tool declares nothing. A destructive tool always
 * requires confirmation, and MCP's `destructiveHint` must agree with the
 * risk level: both are configuration errors naming the tool.
 */
export function readToolGate(tool: ToolInfo, id: string): ToolGate | undefined {
  const raw = tool._meta?.[id];
  if (raw === undefined) return undefined;
  const where = `confirmation: tool "${tool.name}" _meta["${id}"]`;
  if (!isRecord(raw)) throw new ConfigurationError('INVALID_TOOL_META', `${where} must be an object`);
  const { requires_confirmation: requires, risk_level: risk, confirmation_message: message } = raw;
  if (risk !== undefined && !isRiskLevel(risk)) {
    throw new ConfigurationError('INVALID_TOOL_META', `${where}.risk_level must be one of ${RISK_LEVELS.join(', ')}`);
  }
  if (requires !== undefined && typeof requires !== 'boolean') {
    throw new ConfigurationError('INVALID_TOOL_META', `${where}.requires_confirmation must be a boolean`);
  }
  if (message !== undefined && (typeof message !== 'string' || message.length === 0 || message.length > 2000)) {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `${where}.confirmation_message must be a string of 1 to 2000 characters`,
    );
  }
  const riskLevel: RiskLevel = risk ?? (requires === true ? 'destructive' : 'safe');
  if (riskLevel === 'destructive' && requires === false) {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `${where}: a destructive tool always requires confirmation; remove requires_confirmation: false or lower the risk level`,
    );
  }
  const hint = tool.annotations?.destructiveHint;
  if (hint !== undefined && hint !== (riskLevel === 'destructive')) {
    throw new ConfigurationError(
      'INVALID_TOOL_META',
      `${where}: annotations.destructiveHint (${String(hint)}) contradicts risk_level "${riskLevel}"`,
    );
  }
  return { requiresConfirmation: requires ?? riskLevel === 'destructive', riskLevel, message };
}

/** The normalized `Tool._meta[id]` the server advertises for a gate. */
export function toolMetaOf(gate: ToolGate): ConfirmationToolMeta {
  const meta: ConfirmationToolMeta = { requires_confirmation: gate.requiresConfirmation, risk_level: gate.riskLevel };
  if (gate.message !== undefined) meta.confirmation_message = gate.message;
  return meta;
}

/** A caller's value as shown in a message: on one line, nothing hidden, at most 200 characters (CONF-4a). */
function renderArgument(value: unknown): string {
  return displayText(typeof value === 'string' ? value : JSON.stringify(value), MAX_PLACEHOLDER_LENGTH);
}

/**
 * Fills `{param}` placeholders with the call's arguments (CONF-4): strings
 * as they are, other values as JSON, each with its control, line-break,
 * bidi and invisible characters shown as escapes and cut at 200 characters
 * (CONF-4a). A placeholder naming no argument stays as written so the user
 * sees the gap. The template is the tool author's and stays as written.
 */
export function fillMessage(template: string, args: Readonly<Record<string, unknown>>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(args, name) && args[name] !== undefined ? renderArgument(args[name]) : whole,
  );
}

/** The message shown for a call: the author's template filled in, or a generated one. */
export function confirmationMessage(tool: ToolInfo, gate: ToolGate, args: Readonly<Record<string, unknown>>): string {
  if (gate.message !== undefined) return fillMessage(gate.message, args);
  const shown = Object.keys(args).length === 0 ? '' : ` with ${renderArgument(args)}`;
  return `Allow the ${gate.riskLevel} operation "${tool.title ?? tool.name}"${shown}?`;
}

/** Whether `value` is shaped like a confirmation token or grant id. */
export function isTokenShaped(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

/**
 * The gate a call must pass: the tool's own declaration, or, for a tool
 * that declares none, the approvals other extensions asked for this call
 * (cost's `requires_approval`, CONF-19), with their reasons as the message
 * and the most severe risk level they named.
 */
export function effectiveGate(
  declared: ToolGate | undefined,
  asked: readonly ApprovalRequirement[],
): ToolGate | undefined {
  if (declared?.requiresConfirmation === true) return declared;
  if (asked.length === 0) return undefined;
  const riskLevel = asked
    .map((requirement) => requirement.riskLevel ?? 'reversible')
    .reduce<RiskLevel>(
      (worst, level) => (RISK_LEVELS.indexOf(level) > RISK_LEVELS.indexOf(worst) ? level : worst),
      'safe',
    );
  return { requiresConfirmation: true, riskLevel, message: asked.map((requirement) => requirement.reason).join(' ') };
}

/** The key of the confirmation question in a 2026-07-28 input_required result. */
export const CONFIRM_INPUT_KEY = 'confirm';

/** The request context's elicitation asks for one boolean; the client half recognises it by this shape. */
export function confirmationElicitation(
  tool: string,
  message: string,
  riskLevel: RiskLevel,
): { message: string; requestedSchema: Record<string, unknown> } {
  return {
    message: `${message}\n\nRisk level: ${riskLevel}.`,
    requestedSchema: {
      type: 'object',
      properties: {
        confirm: {
          type: 'boolean',
          title: 'Approve',
          description: `Approve this ${riskLevel} operation: ${tool}`,
          default: false,
        },
      },
      required: ['confirm'],
    },
  };
}

const digests = new WeakMap<ToolInfo, string>();

/**
 * The tool as a person approved it (CONF-21): its name, title, description,
 * annotations and schemas. A tool whose definition changes (a redeploy, an
 * upstream behind a gateway) is another tool to a token, a question or a
 * grant given for the old one.
 */
export function toolDigest(tool: ToolInfo): string {
  let digest = digests.get(tool);
  if (digest === undefined) {
    const { name, title, description, annotations, inputJsonSchema, outputJsonSchema } = tool;
    digest = canonicalHash({ name, title, description, annotations, inputJsonSchema, outputJsonSchema });
    digests.set(tool, digest);
  }
  return digest;
}

/** What a token or question binds a call to: these arguments, for this tool as defined now (CONF-21). */
export function callHash(tool: ToolInfo, args: Record<string, unknown>): string {
  return canonicalHash({ tool: toolDigest(tool), arguments: args });
}
