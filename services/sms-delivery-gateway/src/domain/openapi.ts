import { OAuthErrorBodySchema, OutboxMessageSchema, WebhookDeliverySchema } from '@smsauth/contracts';
import { openApiPathsOf, SchemaComponents, withInputGuardRefusals, type Operation } from '@smsauth/service-kit';

// What the gateway's document says besides its operations (each declared once, in routes/):
// its title, the tags' descriptions, the security schemes and the schemas no operation names.

export interface OpenApiOptions {
  version: string;
  /** Every operation the app serves, as the configuration shapes them. */
  operations: readonly Operation[];
}

const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'Delivery', description: 'What the identity service calls: one SMS per one-time code, and its status.' },
  { name: 'Delivery receipts', description: 'What SMS providers call (GATEWAY_PUBLIC_URL is set).' },
  { name: 'Outbox (development)', description: 'The outbox provider’s kept messages (SMS_PROVIDER=outbox).' },
  { name: 'Operations', description: 'Probes, metrics and this document.' },
];

/** The gateway's OpenAPI 3.1 document (`GET /openapi.json`), generated from its operations; schemas from @smsauth/contracts. */
export function buildOpenApiDocument({ version, operations }: OpenApiOptions): Record<string, unknown> {
  const components = new SchemaComponents();
  const errorBody = components.ref('ErrorBody', OAuthErrorBodySchema, 'output');
  const paths = openApiPathsOf(operations, { components });
  // Named for readers though no operation refers to them: one outbox message (as answered), and
  // what the webhook provider POSTs to WEBHOOK_URL (a request to the receiver: its input form).
  components.ref('OutboxMessage', OutboxMessageSchema, 'output');
  components.ref('WebhookDelivery', WebhookDeliverySchema, 'input');
  const used = new Set(operations.flatMap((operation) => operation.tags ?? []));
  const unknown = [...used].filter((name) => !TAGS.some((tag) => tag.name === name));
  if (unknown.length) throw new Error(`The gateway's document describes no tag ${unknown.join(', ')}`);
  return {
    // No jsonSchemaDialect: OpenAPI 3.1's default dialect is JSON Schema 2020-12 with OpenAPI's
    // vocabulary, what the schemas are; naming plain 2020-12 made Swagger UI warn on every page.
    openapi: '3.1.0',
    info: {
      title: 'smsauth SMS delivery gateway',
      version,
      description: 'Receives the identity service delivery POST and hands the SMS to a provider.',
    },
    tags: TAGS.filter((tag) => used.has(tag.name)),
    // The kit's input guard answers every route before it runs: its 400 is every operation's.
    paths: withInputGuardRefusals(paths, errorBody),
    components: {
      schemas: Object.fromEntries(Object.entries(components.toJson()).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        deliveryToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'HS256 JWT signed with GATEWAY_AUTH_SECRET; iat required (at most 10 minutes old); aud/sub checked when configured.',
        },
        outboxToken: { type: 'http', scheme: 'bearer', description: 'The OUTBOX_TOKEN value.' },
      },
    },
  };
}
