import { z } from 'zod';
import { ConnectionCreateSchema, ConnectionRecordSchema, ConnectionUpdateSchema } from './connection';
import { DeliveryRequestSchema } from './delivery';
import { LogStreamCreateSchema, LogStreamCreatedSchema, LogStreamRecordSchema, LogStreamUpdateSchema } from './log-streams';
import { OAuthErrorBodySchema } from './errors';
import { GatewayRejectionSchema, RpcStatusSchema } from './gateway-rejection';
import { OpenApi2DocumentSchema, SecurityDefinitionSchema } from './openapi';
import { StartRequestSchema, StartResponseSchema } from './passwordless';
import {
  ClientCredentialsRequestSchema,
  OAuthTokenRequestSchema,
  OAuthTokenResponseSchema,
  OtpGrantRequestSchema,
  RefreshTokenRequestSchema,
  AuthorizationCodeRequestSchema,
  RoTokenRequestSchema,
  RoTokenResponseSchema,
  UserInfoResponseSchema,
} from './token';

export type JsonSchema = z.core.JSONSchema.BaseSchema;

/**
 * zod -> JSON Schema (draft 2020-12) of what a caller may send: `io: 'input'` shows
 * defaulted fields as optional. Refinements have no JSON Schema form and are left out;
 * `unrepresentable: 'any'` turns anything else without one into `{}` instead of throwing.
 * `io: 'output'` gives what a service answers with: a non-strict object is then closed
 * (`additionalProperties: false`), so a response field no schema names fails validation.
 */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // `.includes()` yields a correct `pattern` plus a non-standard `format: "includes"`.
    override: ({ jsonSchema }) => {
      if (jsonSchema.format === 'includes') delete jsonSchema.format;
    },
  });
}

/** Every top-level request/response schema, by name, for services' OpenAPI documents. */
export const contractSchemas = {
  OAuthErrorBody: OAuthErrorBodySchema,
  ConnectionCreate: ConnectionCreateSchema,
  ConnectionUpdate: ConnectionUpdateSchema,
  ConnectionRecord: ConnectionRecordSchema,
  DeliveryRequest: DeliveryRequestSchema,
  LogStreamCreate: LogStreamCreateSchema,
  LogStreamUpdate: LogStreamUpdateSchema,
  LogStreamRecord: LogStreamRecordSchema,
  LogStreamCreated: LogStreamCreatedSchema,
  StartRequest: StartRequestSchema,
  StartResponse: StartResponseSchema,
  RoTokenRequest: RoTokenRequestSchema,
  RoTokenResponse: RoTokenResponseSchema,
  OAuthTokenRequest: OAuthTokenRequestSchema,
  OtpGrantRequest: OtpGrantRequestSchema,
  ClientCredentialsRequest: ClientCredentialsRequestSchema,
  RefreshTokenRequest: RefreshTokenRequestSchema,
  AuthorizationCodeRequest: AuthorizationCodeRequestSchema,
  OAuthTokenResponse: OAuthTokenResponseSchema,
  UserInfoResponse: UserInfoResponseSchema,
  SecurityDefinition: SecurityDefinitionSchema,
  OpenApi2Document: OpenApi2DocumentSchema,
  RpcStatus: RpcStatusSchema,
  GatewayRejection: GatewayRejectionSchema,
} satisfies Record<string, z.ZodType>;

export const contractJsonSchemas: Record<keyof typeof contractSchemas, JsonSchema> = Object.fromEntries(
  Object.entries(contractSchemas).map(([name, schema]) => [name, toJsonSchema(schema)]),
) as Record<keyof typeof contractSchemas, JsonSchema>;
