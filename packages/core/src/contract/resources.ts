/** What an extension's resources answer to `resources/read`. */
/** One resource's contents as `resources/read` answers them: UTF-8 text, or the bytes in base64. */
export type ResourceContents =
  | {
      readonly uri: string;
      readonly mimeType?: string | undefined;
      readonly text: string;
      readonly _meta?: Readonly<Record<string, unknown>> | undefined;
    }
  | {
      readonly uri: string;
      readonly mimeType?: string | undefined;
      readonly blob: string;
      readonly _meta?: Readonly<Record<string, unknown>> | undefined;
    };

/** The answer to `resources/read`, MCP-shaped. */
export interface ResourceReadResult {
  readonly contents: readonly ResourceContents[];
  readonly _meta?: Readonly<Record<string, unknown>> | undefined;
}
