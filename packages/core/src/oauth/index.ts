/**
 * `@ext/core/oauth`: an OAuth 2.1 resource server for the HTTP handlers of
 * both SDK lines (core SPEC, AUTH-1 to AUTH-8). No SDK import.
 */
export { oauthResource } from './resource.js';
export type { OAuthResource, OAuthResourceContext } from './resource.js';
export type { ClaimOptions, IntrospectionOptions, OAuthResourceOptions } from './options.js';
