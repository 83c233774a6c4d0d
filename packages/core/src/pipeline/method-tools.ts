/** Extension methods served as ordinary tools too, for hosts that can only call tools. */
import { ConfigurationError } from '../contract/errors.js';
import type { ExtendedServer } from '../contract/host.js';
import type { StandardSchemaV1, ToolInfo, ToolResult } from '../contract/types.js';

/** One extension method served as an ordinary tool too. */
export interface MethodTool {
  /** The method's verb: `check` for `<id>/check`. */
  readonly verb: string;
  /** The tool's name, e.g. `check_permissions`. */
  readonly name: string;
  readonly description: string;
  /** The tool's arguments (a zod object schema), validated before `params` sees them. */
  readonly inputSchema: StandardSchemaV1<Record<string, unknown>>;
  /**
   * Turns the validated arguments into the method's params, for what a tool
   * may leave out but the method requires (e.g. a generated id). Default:
   * the arguments unchanged.
   */
  readonly params?: ((args: Record<string, unknown>) => Record<string, unknown>) | undefined;
  /** One readable line about the result, shown before its JSON. Default: none. */
  readonly summary?: ((result: Record<string, unknown>) => string) | undefined;
  readonly annotations?: ToolInfo['annotations'];
}

/**
 * Serves extension methods as tools as well (most LLM hosts can only call
 * tools; docs/ARCHITECTURE.md, 'Where extension data travels'). Each tool runs the very handler of
 * `<id>/<verb>` with the call's context, so both doors behave the same; its
 * result carries the method's answer as `structuredContent`. A failure is
 * thrown as it is, so the errors stage reports it like any tool failure.
 * Throws a `ConfigurationError` naming the verb when the extension is not
 * composed or serves no such method.
 */
export function registerMethodTools(
  server: Pick<ExtendedServer, 'registerTool' | 'composed'>,
  extensionName: string,
  tools: readonly MethodTool[],
): ToolInfo[] {
  const methods = server.composed.methods.filter((entry) => entry.extension === extensionName);
  if (methods.length === 0) {
    throw new ConfigurationError(
      'MISSING_DEPENDENCY',
      `registerMethodTools: ${extensionName} is not composed into this server, or serves no methods`,
    );
  }
  // The newest identifier's method: every identifier of an extension runs the same handler.
  const byVerb = new Map(methods.map((entry) => [entry.method.slice(entry.id.length + 1), entry]));
  return tools.map((tool) => {
    const method = byVerb.get(tool.verb);
    if (method === undefined) {
      throw new ConfigurationError(
        'UNKNOWN_METHOD',
        `registerMethodTools: ${extensionName} serves no "${tool.verb}" method (it serves ${[...byVerb.keys()].join(', ')})`,
      );
    }
    return server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: tool.inputSchema, annotations: tool.annotations },
      async (args, ctx): Promise<ToolResult> => {
        const result = await method.handler(tool.params === undefined ? args : tool.params(args), ctx);
        const json = JSON.stringify(result);
        const text = tool.summary === undefined ? json : `${tool.summary(result)}\n${json}`;
        return { content: [{ type: 'text', text }], structuredContent: result };
      },
    );
  });
}
