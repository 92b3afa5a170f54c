export { createApiGateway, USER_INFO_HEADER, type ApiGatewayOptions, type ApiGatewayMiddleware } from './gateway';
export {
  compileDocument,
  loadOpenApiDocument,
  OpenApiDocumentError,
  DEFAULT_JWT_LOCATIONS,
  type GatewayOperation,
  type JwtScheme,
  type SecurityRequirement,
} from './document';
export { algorithmsForKey, ASYMMETRIC_ALGORITHMS } from './algorithms';
export { MAX_TOKEN_LENGTH } from './jwt-verifier';
export type { AuthOutcome } from './gateway-metrics';
export type { JwtClaims } from './types';
