import { z } from 'zod';

/** `x-<vendor>-<name>`; the vendor word is `google` for the reference gateway. */
const EXTENSION_KEY = /^x-([a-z0-9]+)-(issuer|jwks_uri|audiences|jwt-locations)$/;
const REQUIRED_EXTENSIONS = ['issuer', 'jwks_uri', 'audiences'] as const;

/**
 * Where the gateway looks for the token, e.g. `{header: 'Authorization', value_prefix: 'Bearer '}`.
 * Fields as in google.api.JwtLocation, which also has `cookie`.
 */
export const JwtLocationSchema = z
  .strictObject({
    header: z.string().min(1).optional(),
    query: z.string().min(1).optional(),
    cookie: z.string().min(1).optional(),
    value_prefix: z.string().optional(),
  })
  .superRefine((location, ctx) => {
    const sources = [location.header, location.query, location.cookie].filter((source) => source !== undefined);
    if (sources.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: 'must name exactly one of header, query or cookie' });
    }
    if (location.value_prefix !== undefined && location.header === undefined) {
      ctx.addIssue({ code: 'custom', path: ['value_prefix'], message: 'only applies to a header location' });
    }
  });
export type JwtLocation = z.infer<typeof JwtLocationSchema>;

const extensionValueSchemas = {
  issuer: z.string().min(1),
  jwks_uri: z.url({ protocol: z.regexes.httpProtocol, message: 'must be an http: or https: URL' }),
  audiences: z.string().refine((value) => splitAudiences(value).length > 0, {
    message: 'must list at least one audience',
  }),
  'jwt-locations': z.array(JwtLocationSchema).min(1),
} as const;

function vendorsOf(definition: Record<string, unknown>): string[] {
  const vendors = Object.keys(definition).flatMap((key) => EXTENSION_KEY.exec(key)?.[1] ?? []);
  return [...new Set(vendors)];
}

/** 2.7: one entry of `securityDefinitions`. Loose, as gateways add their own extensions. */
export const SecurityDefinitionSchema = z
  .looseObject({
    type: z.literal('oauth2'),
    flow: z.literal('implicit'),
    authorizationUrl: z.url(),
  })
  .superRefine((definition, ctx) => {
    const vendors = vendorsOf(definition);
    if (vendors.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message:
          vendors.length === 0
            ? 'must carry x-<vendor>-issuer, x-<vendor>-jwks_uri and x-<vendor>-audiences'
            : `mixes extension vendor words: ${vendors.join(', ')}`,
      });
      return;
    }
    const vendor = vendors[0];
    for (const [name, schema] of Object.entries(extensionValueSchemas)) {
      const key = `x-${vendor}-${name}`;
      const value = definition[key];
      if (value === undefined) {
        if ((REQUIRED_EXTENSIONS as readonly string[]).includes(name)) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required' });
        }
        continue;
      }
      // Re-emit with the extension key in front so the path names the field.
      for (const issue of schema.safeParse(value).error?.issues ?? []) {
        ctx.addIssue({ code: 'custom', path: [key, ...issue.path], message: issue.message });
      }
    }
  });
export type SecurityDefinition = z.infer<typeof SecurityDefinitionSchema>;

export interface SecurityExtensions {
  vendor: string;
  issuer: string;
  jwksUri: string;
  audiences: string[];
  jwtLocations?: JwtLocation[];
}

function splitAudiences(value: string): string[] {
  return value
    .split(',')
    .map((audience) => audience.trim())
    .filter((audience) => audience.length > 0);
}

/** Validates a security definition and reads its `x-<vendor>-*` extensions; throws ZodError if invalid. */
export function readSecurityExtensions(definition: unknown): SecurityExtensions {
  const parsed = SecurityDefinitionSchema.parse(definition);
  const vendor = vendorsOf(parsed)[0] as string;
  const extension = (name: string): unknown => parsed[`x-${vendor}-${name}`];
  const jwtLocations = extension('jwt-locations') as JwtLocation[] | undefined;
  return {
    vendor,
    issuer: extension('issuer') as string,
    jwksUri: extension('jwks_uri') as string,
    audiences: splitAudiences(extension('audiences') as string),
    ...(jwtLocations ? { jwtLocations } : {}),
  };
}

/**
 * Minimal OpenAPI 2.0 document: only what the gateway reads is checked, the rest passes.
 * `securityDefinitions` entries are only required to have a `type` (documents may hold
 * apiKey or basic schemes too); parse the JWT one with SecurityDefinitionSchema.
 */
export const OpenApi2DocumentSchema = z.looseObject({
  swagger: z.literal('2.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  host: z.string().optional(),
  basePath: z.string().optional(),
  schemes: z.array(z.string()).optional(),
  paths: z.record(z.string(), z.unknown()),
  securityDefinitions: z.record(z.string(), z.looseObject({ type: z.string() })).optional(),
});
export type OpenApi2Document = z.infer<typeof OpenApi2DocumentSchema>;
