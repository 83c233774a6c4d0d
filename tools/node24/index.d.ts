/** The `node` binary of Node.js 24, or `undefined` off linux-x64. */
export declare const node24Binary: string | undefined;
/** Its install folder (headers for node-gyp), or `undefined`. */
export declare const node24Home: string | undefined;
