// Run inside a package after its build: every error class the package exports
// must be branded (a static `isInstance` that recognizes its instances), so
// `isInstance` works across duplicate copies of the package (docs/ARCHITECTURE.md, 'Errors').
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const problems = [];
let checked = 0;

for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
  if (subpath === './package.json' || subpath.includes('testing')) continue;
  const file = typeof target === 'string' ? target : target.default;
  let mod;
  try {
    mod = await import(pathToFileURL(resolve(dir, file)).href);
  } catch (error) {
    // An entry whose optional peer (an SDK) is absent cannot load; that is allowed.
    if (error && error.code === 'ERR_MODULE_NOT_FOUND') continue;
    throw error;
  }
  for (const [name, value] of Object.entries(mod)) {
    if (typeof value !== 'function' || !(value.prototype instanceof Error)) continue;
    checked += 1;
    if (typeof value.isInstance !== 'function') {
      problems.push(`${pkg.name}${subpath.slice(1)}: ${name} has no static isInstance`);
      continue;
    }
    // Instances made without running the constructor cannot carry a brand, so
    // check the contract on a real instance where the constructor allows it.
    let instance;
    try {
      instance = new value('transient', 'CHECK', 'check');
    } catch {
      instance = undefined;
    }
    if (instance !== undefined && value.isInstance(instance) !== true) {
      problems.push(`${pkg.name}${subpath.slice(1)}: ${name}.isInstance does not recognize its own instance`);
    }
    if (value.isInstance(new Error('plain')) !== false) {
      problems.push(`${pkg.name}${subpath.slice(1)}: ${name}.isInstance accepts a plain Error`);
    }
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`${pkg.name}: ${checked} exported error class(es), all branded`);
