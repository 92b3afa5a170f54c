import { z } from 'zod';
import { TenantLogSchema } from './tenant-logs';

// Log streams (`/api/v2/log-streams`) in the reference product's shape: an `http` stream
// pushes tenant log events to `sink.httpEndpoint`. Bodies are strict: a misspelt field is a
// 400 naming it.

export const LOG_STREAM_STATUSES = ['active', 'paused', 'suspended'] as const;
export type LogStreamStatus = (typeof LOG_STREAM_STATUSES)[number];

/**
 * How a batch is sent: JSONLINES (one event per line), JSONARRAY (one array per request),
 * JSONOBJECT (one event per request).
 */
export const LOG_STREAM_CONTENT_FORMATS = ['JSONLINES', 'JSONARRAY', 'JSONOBJECT'] as const;
export type LogStreamContentFormat = (typeof LOG_STREAM_CONTENT_FORMATS)[number];

export const DEFAULT_LOG_STREAM_CONTENT_TYPE = 'application/json';

/** The header carrying a delivery's HMAC-SHA256 signature: `t=<unix seconds>,v1=<hex>`. */
export const LOG_STREAM_SIGNATURE_HEADER = 'X-Smsauth-Signature';
/** The header naming the stream a delivery belongs to. */
export const LOG_STREAM_ID_HEADER = 'X-Smsauth-Log-Stream';

const LogStreamNameSchema = z.string().trim().min(1).max(128);

/** Only http(s): other schemes are an SSRF foothold. The address is checked by the URL policy. */
const HttpEndpointSchema = z.url({ protocol: z.regexes.httpProtocol, message: 'must be an http: or https: URL' }).max(2048);

/** Sent verbatim as the Authorization header: printable ASCII only, so it cannot inject a header. */
const HttpAuthorizationSchema = z
  .string()
  .min(1)
  .max(1024)
  .regex(/^[\x20-\x7e]+$/, { message: 'must be printable ASCII (no line breaks)' });

/** A media type with optional parameters, e.g. `application/json; charset=utf-8`. */
const HttpContentTypeSchema = z
  .string()
  .max(255)
  .regex(/^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=(?:[\w.+-]+|"[^"\r\n]*"))*$/, { message: 'must be a media type such as application/json' });

const HttpContentFormatSchema = z.enum(LOG_STREAM_CONTENT_FORMATS, { message: 'must be JSONLINES, JSONARRAY or JSONOBJECT' });

export const LogStreamHttpSinkSchema = z.strictObject({
  httpEndpoint: HttpEndpointSchema,
  /** Write-only: stored encrypted, never returned. */
  httpAuthorization: HttpAuthorizationSchema.optional(),
  httpContentFormat: HttpContentFormatSchema.default('JSONLINES'),
  httpContentType: HttpContentTypeSchema.default(DEFAULT_LOG_STREAM_CONTENT_TYPE),
});
export type LogStreamHttpSink = z.output<typeof LogStreamHttpSinkSchema>;

/** POST body. Only `http` streams exist here. */
export const LogStreamCreateSchema = z.strictObject({
  name: LogStreamNameSchema,
  type: z.literal('http', { message: 'must be http (the only sink type this service delivers to)' }),
  sink: LogStreamHttpSinkSchema,
});
export type LogStreamCreate = z.output<typeof LogStreamCreateSchema>;

/**
 * PATCH body. `status: "active"` resumes a paused or suspended stream (from its cursor: nothing
 * is skipped); `suspended` is set by delivery failures only. Sink fields are merged into the
 * stored sink; `httpAuthorization: null` removes the header, leaving it out keeps it.
 */
export const LogStreamUpdateSchema = z.strictObject({
  name: LogStreamNameSchema.optional(),
  status: z.enum(['active', 'paused'], { message: 'must be active or paused (suspended is set by failed deliveries)' }).optional(),
  sink: z
    .strictObject({
      httpEndpoint: HttpEndpointSchema.optional(),
      httpAuthorization: HttpAuthorizationSchema.nullable().optional(),
      httpContentFormat: HttpContentFormatSchema.optional(),
      httpContentType: HttpContentTypeSchema.optional(),
    })
    .optional(),
});
export type LogStreamUpdate = z.output<typeof LogStreamUpdateSchema>;

/** How delivery is going: visible on GET, so an operator sees why a stream was suspended. */
export const LogStreamDeliverySchema = z.object({
  /** Failed attempts since the last delivered batch. */
  consecutive_failures: z.int().nonnegative(),
  last_delivered_at: z.string().optional(),
  /** The last failed attempt and why it failed (status code, timeout, refused address...). */
  last_failure: z.object({ at: z.string(), reason: z.string() }).optional(),
  /** When the next attempt is due after a failure (backoff). */
  next_attempt_at: z.string().optional(),
});

/** The stream as the management API returns it; `sink.httpAuthorization` is never shown. */
export const LogStreamRecordSchema = z.object({
  id: z.string().regex(/^lst_[A-Za-z0-9]+$/),
  name: z.string(),
  type: z.literal('http'),
  status: z.enum(LOG_STREAM_STATUSES),
  sink: LogStreamHttpSinkSchema.omit({ httpAuthorization: true }).extend({
    httpContentFormat: HttpContentFormatSchema,
    httpContentType: z.string(),
  }),
  /** Only while `status` is `suspended`: why delivery stopped. */
  suspended_reason: z.string().optional(),
  delivery: LogStreamDeliverySchema,
});
export type LogStreamRecord = z.infer<typeof LogStreamRecordSchema>;

/**
 * The create answer: the record plus the stream's signing secret, shown this once. Receivers
 * check each delivery's X-Smsauth-Signature with it.
 */
export const LogStreamCreatedSchema = LogStreamRecordSchema.extend({
  signing_secret: z.string().regex(/^lss_[A-Za-z0-9_-]{43}$/),
});
export type LogStreamCreated = z.infer<typeof LogStreamCreatedSchema>;

/** One event as a stream delivers it, in the reference product's `{log_id, data}` shape; `data` is the record as `GET /api/v2/logs` shows it. */
export const LogStreamEventSchema = z.object({
  log_id: z.string(),
  data: TenantLogSchema.strict(),
});
export type LogStreamEvent = z.infer<typeof LogStreamEventSchema>;
