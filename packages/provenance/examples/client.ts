/** The README's client half: reads a result's sources and renders them as citations. */
// #region client
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { extendClient } from '@ext/core/sdk-v2/client';
import { citation, citations, getProvenance, provenanceClient } from '@ext/provenance/client';

const sdkClient = new Client({ name: 'analyst', version: '1.0.0' });
const client = extendClient(sdkClient, [provenanceClient()]);
await sdkClient.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] })); // the server half above

const result = await client.callTool('get_revenue', { quarter: 'Q3' });
const found = getProvenance(result); // { sources, digest: 'verified' | 'mismatch' | 'absent', omitted }
for (const source of found?.sources ?? []) console.log(citation(source)); // 'invoice_v2.pdf p.3, retrieved 2026-03-10'
console.log(citations(result, 'Q3 revenue $4.2M', { requireVerified: true }));
// [ 'Q3 revenue $4.2M, invoice_v2.pdf p.3, retrieved 2026-03-10' ]
// #endregion client
