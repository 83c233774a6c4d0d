/**
 * What the CEL type checker lets through but would cost too much on hostile
 * input, refused when a condition is compiled: a loop inside a loop, and a
 * `matches()` pattern that is not a literal or can backtrack exponentially.
 * Also records the names an expression reads. Pure.
 */
import type { ASTNode } from '@marcbachmann/cel-js';

const MACROS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

export interface Problem {
  readonly at: number;
  readonly reason: string;
}

/** Refuses what the type checker lets through but costs too much on hostile input; records the names read. */
export function review(node: ASTNode, inLoop: boolean, names: Set<string>): Problem | undefined {
  if (node.op === 'id') {
    names.add(node.args);
    return undefined;
  }
  if (node.op === 'rcall') {
    const [name, receiver, args] = node.args;
    if (name === 'matches') {
      const problem = patternProblem(args[0], node);
      if (problem !== undefined) return problem;
    }
    if (MACROS.has(name) && args[0]?.op === 'id') {
      // Nested loops cost the product of two input sizes; chained ones (`a.filter(..).map(..)`) only the sum.
      if (inLoop) return { at: node.start, reason: `${name}() inside the body of another macro is not allowed` };
      return reviewAll([receiver], inLoop, names) ?? reviewAll(args, true, names);
    }
  }
  return reviewAll(childrenOf(node), inLoop, names);
}

function reviewAll(nodes: readonly ASTNode[], inLoop: boolean, names: Set<string>): Problem | undefined {
  for (const node of nodes) {
    const problem = review(node, inLoop, names);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function childrenOf(node: ASTNode): readonly ASTNode[] {
  switch (node.op) {
    case 'value':
    case 'id':
      return [];
    case '.':
    case '.?':
      return [node.args[0]];
    case 'call':
      return node.args[1];
    case 'rcall':
      return [node.args[1], ...node.args[2]];
    case 'map':
      return node.args.flat();
    case '!_':
    case '-_':
      return [node.args];
    default:
      return node.args;
  }
}

// The library runs `matches` with JavaScript's backtracking engine, not RE2, on
// every call: a pattern taken from the input, or one that backtracks
// exponentially, would let one call stall the gateway.
function patternProblem(pattern: ASTNode | undefined, call: ASTNode): Problem | undefined {
  if (pattern?.op !== 'value' || typeof pattern.args !== 'string') {
    return { at: (pattern ?? call).start, reason: 'matches() takes a string literal as its pattern' };
  }
  try {
    new RegExp(pattern.args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'invalid';
    return { at: pattern.start, reason: `matches() pattern is not a valid regular expression: ${reason}` };
  }
  if (!backtracks(pattern.args)) return undefined;
  const reason =
    'matches() pattern can backtrack exponentially (a repeated group that holds a repetition or an alternation, or a back-reference)';
  return { at: pattern.start, reason };
}

/**
 * Whether a pattern can backtrack exponentially: a back-reference, or a group
 * repeated by `*`, `+` or `{..}` that itself holds a repetition or an
 * alternation (`(a+)+`, `(a|ab)*`). A heuristic that errs towards refusing
 * (`(\.[a-z]+)*` is safe but refused).
 */
function backtracks(pattern: string): boolean {
  if (/\\[1-9]|\\k</.test(pattern)) return true;
  // Escapes and character classes cannot repeat or alternate: each is one atom.
  const atoms = pattern.replace(/\\[\s\S]/g, 'x').replace(/\[[^\]]*\]/g, 'x');
  const groups: boolean[] = []; // per open group: whether it holds a repetition or an alternation
  let riskyGroupJustClosed = false;
  for (let index = 0; index < atoms.length; index += 1) {
    const char = atoms.charAt(index);
    const repeatsRiskyGroup = riskyGroupJustClosed;
    riskyGroupJustClosed = false;
    if (char === '(') {
      groups.push(false);
      // `(?:`, `(?=`, `(?<name>`: that `?` repeats nothing.
      if (atoms.charAt(index + 1) === '?') index += 1;
    } else if (char === ')') {
      riskyGroupJustClosed = groups.pop() ?? false;
      if (riskyGroupJustClosed) markInnermost(groups);
    } else if ('*+{?|'.includes(char)) {
      if (repeatsRiskyGroup && '*+{'.includes(char)) return true;
      markInnermost(groups);
    }
  }
  return false;
}

function markInnermost(groups: boolean[]): void {
  if (groups.length > 0) groups[groups.length - 1] = true;
}
