// Global set-up of the release checks: packs every publishable package once.
import type { TestProject } from 'vitest/node';
import { packPackages } from './src/pack.js';
import { tempDir } from './src/run.js';
import { publishablePackages, workspaceRoot } from './src/workspace.js';

/**
 * Packs every publishable package once, into a temporary folder removed at
 * the end of the run. The packages are built before this runs (turbo's
 * `^build`: they are this package's devDependencies).
 */
export async function setup(project: TestProject): Promise<() => void> {
  const folder = tempDir('packs');
  try {
    project.provide('packed', await packPackages(publishablePackages(workspaceRoot()), folder.path));
  } catch (error) {
    folder.remove();
    throw error;
  }
  return () => {
    folder.remove();
  };
}
