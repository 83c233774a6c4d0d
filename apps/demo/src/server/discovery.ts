/** What the tracker's discovery extension recommends from: the registry index the app ships, and the sheets server. */
import { consoleLogger } from '@ext/core/kit';
import { type Logger } from '@ext/core';
import { loadRegistryFile, RegistryIndex, type DiscoveryPeer } from '@ext/discovery/server';
import { appFile } from './app-dir.js';

/**
 * The sheets server, as the tracker recommends it for spreadsheet work. It
 * runs on 127.0.0.1, and a recommendation's URL must be https, so the peer
 * names no URL: the tour connects to the sheets server it started.
 */
export const SHEETS_PEER: DiscoveryPeer = {
  name: 'io.github.mcp-ext/demo-sheets',
  title: 'Sheets (demo)',
  description: 'Spreadsheets: import CSV files by data reference and summarize their rows and columns.',
  keywords: ['spreadsheet', 'csv', 'table', 'rows', 'columns'],
  authFlow: 'none',
};

/**
 * Loads the demo's registry index (the MCP Registry's `/v0.1/servers`
 * format, `registry/servers.json`, shipped with the app); an unreadable
 * file leaves the index empty (peers still answer).
 */
export async function loadTrackerIndex(
  logger: Logger = consoleLogger,
  path = appFile('registry', 'servers.json'),
): Promise<RegistryIndex> {
  const index = new RegistryIndex();
  try {
    await loadRegistryFile(index, path, { registryUrl: 'https://registry.modelcontextprotocol.io' });
  } catch (error) {
    logger.warn('tracker: the registry index could not be loaded; discovery answers from its peers only', {
      path,
      error: String(error),
    });
  }
  return index;
}
