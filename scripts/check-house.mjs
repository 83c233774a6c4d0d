#!/usr/bin/env node
// The house limits of a package's source, checked from its syntax tree:
// no source file over 300 lines, no function over 60, no import circle
// between its modules (type-only imports included), and at most a given
// number of names exported by its `.` entry.
//
//   node scripts/check-house.mjs <package dir> [--max-exports N] [--report]
//
// Tests and test fixtures are not source. With `--report` the findings are
// printed but do not fail the run.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 60;

function parseArgs(argv) {
  const [dir, ...rest] = argv;
  if (dir === undefined) throw new Error('usage: check-house.mjs <package dir> [--max-exports N] [--report]');
  const at = rest.indexOf('--max-exports');
  const maxExports = at === -1 ? undefined : Number(rest[at + 1]);
  if (maxExports !== undefined && !Number.isInteger(maxExports)) throw new Error('--max-exports takes an integer');
  return { root: resolve(dir), maxExports, report: rest.includes('--report') };
}

function isSource(path) {
  return path.endsWith('.ts') && !path.endsWith('.d.ts') && !/\.test\.ts$|test-fixtures?|\/fixtures\//.test(path);
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return isSource(path) ? [path] : [];
  });
}

const FUNCTION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.FunctionExpression,
  ts.SyntaxKind.ArrowFunction,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.Constructor,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);

function lineOf(file, pos) {
  return file.getLineAndCharacterOfPosition(pos).line + 1;
}

function functionName(node) {
  if (node.name !== undefined) return node.name.getText();
  if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return '(anonymous)';
}

function longFunctions(file) {
  const found = [];
  const visit = (node) => {
    if (FUNCTION_KINDS.has(node.kind) && node.body !== undefined) {
      const lines = lineOf(file, node.body.getEnd()) - lineOf(file, node.getStart(file)) + 1;
      if (lines > MAX_FUNCTION_LINES)
        found.push({ name: functionName(node), line: lineOf(file, node.getStart(file)), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every relative module specifier of a file: imports, re-exports and `import()` types or calls. */
function relativeSpecifiers(file) {
  const specs = [];
  const visit = (node) => {
    const spec =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined
        ? node.moduleSpecifier
        : ts.isImportTypeNode(node)
          ? node.argument.literal
          : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
            ? node.arguments[0]
            : undefined;
    if (spec !== undefined && ts.isStringLiteral(spec) && spec.text.startsWith('.')) specs.push(spec.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return specs;
}

function resolveModule(from, spec) {
  const base = resolve(dirname(from), spec.replace(/\.js$/, ''));
  return [`${base}.ts`, join(base, 'index.ts')].find((path) => existsSync(path));
}

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const connect = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found;
}

function exportedNames(file) {
  let count = 0;
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      count +=
        statement.exportClause !== undefined && ts.isNamedExports(statement.exportClause)
          ? statement.exportClause.elements.length
          : 1;
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      count += ts.isVariableStatement(statement) ? statement.declarationList.declarations.length : 1;
    }
  }
  return count;
}

function parse(path) {
  return ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
}

function findings({ root, maxExports }) {
  const src = join(root, 'src');
  const problems = [];
  const graph = new Map();
  for (const path of sourceFiles(src)) {
    const file = parse(path);
    const name = relative(root, path);
    const lines = file.getLineAndCharacterOfPosition(file.getEnd()).line;
    if (lines > MAX_FILE_LINES) problems.push(`${name}: ${lines} lines (at most ${MAX_FILE_LINES})`);
    for (const fn of longFunctions(file)) {
      problems.push(`${name}:${fn.line}: function ${fn.name} is ${fn.lines} lines (at most ${MAX_FUNCTION_LINES})`);
    }
    const targets = relativeSpecifiers(file).map((spec) => resolveModule(path, spec));
    graph.set(
      path,
      targets.filter((target) => target !== undefined && isSource(target)),
    );
  }
  for (const component of circles(graph)) {
    problems.push(
      `import circle: ${component
        .map((path) => relative(root, path))
        .sort()
        .join(' <-> ')}`,
    );
  }
  if (maxExports !== undefined) {
    const count = exportedNames(parse(join(src, 'index.ts')));
    if (count > maxExports) problems.push(`src/index.ts exports ${count} names (at most ${maxExports})`);
  }
  return problems;
}

const args = parseArgs(process.argv.slice(2));
const problems = findings(args);
for (const problem of problems) console.error(`${relative(process.cwd(), args.root) || '.'}: ${problem}`);
if (problems.length > 0 && !args.report) {
  console.error(`check-house: ${problems.length} problem(s)`);
  process.exit(1);
}
