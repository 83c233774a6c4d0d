// The code blocks a README shows, found by the `<!-- example: <file>#<region> -->` line before each.

/** Escapes `text` for use inside a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The text of the one ```ts block of `readme` whose marker line names
 * `file` (any region), exactly as a reader copies it. Throws unless exactly
 * one block names the file.
 */
export function exampleBlock(readme: string, file: string): string {
  const marker = new RegExp(
    `^<!--\\s*example:\\s*${literal(file)}(?:#[\\w-]+)?\\s*-->\\n\`\`\`(?:ts|typescript)\\n`,
    'gm',
  );
  const found: string[] = [];
  for (const match of readme.matchAll(marker)) {
    const start = match.index + match[0].length;
    const end = readme.indexOf('\n```', start - 1);
    if (end === -1) throw new Error(`the block of ${file} is not closed`);
    found.push(readme.slice(start, end + 1));
  }
  if (found.length !== 1) throw new Error(`expected one code block marked ${file}, found ${found.length}`);
  return found[0] ?? '';
}
