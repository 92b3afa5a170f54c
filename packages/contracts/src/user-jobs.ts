import { z } from 'zod';
import { MetadataSchema } from './users';

// Bulk user jobs (`/api/v2/jobs`) in the reference product's shapes: an import of its user JSON
// format (phone users of an sms connection), an export as NDJSON or CSV, and the job record
// both answer with. docs/user-import-export.md describes them.

/** Largest `users` file an import takes (the reference product's is 500 KB; ours holds ~100,000 phone users). */
export const MAX_USER_IMPORT_FILE_BYTES = 32 * 1024 * 1024;

/** Fields an export may name (the reference product's limit). */
export const MAX_USER_EXPORT_FIELDS = 30;

/**
 * One user of an import file. Strict: a property the schema does not name (`email`,
 * `password_hash`, ...) is that record's error, never silently dropped.
 */
export const UserImportRecordSchema = z.strictObject({
  /** Without the `sms|` prefix (added on import, as the reference product adds `auth0|`); with it, kept as is. */
  user_id: z.string().min(1).max(255).regex(/^\S+$/, { message: 'must not contain spaces' }).optional(),
  /** International form; stored in E.164 after the same check as every number (a record error when it is not valid). */
  phone_number: z.string().min(1).max(64),
  phone_verified: z.boolean().optional(),
  blocked: z.boolean().optional(),
  user_metadata: MetadataSchema.optional(),
  app_metadata: MetadataSchema.optional(),
});
export type UserImportRecord = z.infer<typeof UserImportRecordSchema>;

/** `POST /api/v2/jobs/users-imports` (multipart/form-data): the form fields besides the `users` file. */
export const UserImportFormSchema = z.strictObject({
  connection_id: z.string().min(1).max(128).describe('The SMS connection the users are imported into: one of this tenant\'s (else 400 naming it).'),
  /** Form fields are text: `true` / `false`. */
  upsert: z.enum(['true', 'false']).default('false'),
  external_id: z.string().min(1).max(255).optional(),
  /** Accepted; no completion email is sent (identity sends no email). */
  send_completion_email: z.enum(['true', 'false']).optional(),
  /** The file itself, documented here; the handler reads it from the upload (required). */
  users: z.unknown().optional().meta({ type: 'string', format: 'binary', description: 'The users file: a JSON array of users (required).' }),
});

export const UserExportFieldSchema = z.strictObject({
  /** A user record property: `user_id`, `phone_number`, `identities[0].connection`, `user_metadata.plan`, ... */
  name: z.string().min(1).max(255),
  /** The column (CSV) or key (JSON) it is written under; `name` when absent. */
  export_as: z.string().min(1).max(255).optional(),
});
export type UserExportField = z.infer<typeof UserExportFieldSchema>;

/** `POST /api/v2/jobs/users-exports`. */
export const UserExportCreateSchema = z.strictObject({
  /** All users of the tenant when absent. */
  connection_id: z.string().min(1).max(128).optional().describe('A connection of this tenant (else 400 naming it); all users of the tenant when absent.'),
  /** `json` is NDJSON: one user object per line. */
  format: z.enum(['json', 'csv']).default('json'),
  /** At most this many users; all when absent. */
  limit: z.number().int().min(1).optional(),
  fields: z.array(UserExportFieldSchema).min(1).max(MAX_USER_EXPORT_FIELDS).optional(),
});
export type UserExportCreate = z.infer<typeof UserExportCreateSchema>;

export const JobStatusSchema = z.enum(['pending', 'processing', 'completed', 'failed']);
export type JobStatus = z.infer<typeof JobStatusSchema>;

/** `GET /api/v2/jobs/{id}` and the create answers. */
export const JobRecordSchema = z.object({
  id: z.string(),
  type: z.enum(['users_import', 'users_export']),
  status: JobStatusSchema,
  created_at: z.string(),
  connection_id: z.string().optional(),
  connection: z.string().optional(),
  external_id: z.string().optional(),
  upsert: z.boolean().optional(),
  send_completion_email: z.boolean().optional(),
  format: z.enum(['json', 'csv']).optional(),
  limit: z.number().int().optional(),
  fields: z.array(UserExportFieldSchema).optional(),
  /** Imports while processing or once done. */
  summary: z.object({ failed: z.number().int(), updated: z.number().int(), inserted: z.number().int(), total: z.number().int() }).optional(),
  percentage_done: z.number().int().optional(),
  /** A completed export: where its gzip file downloads, without a token, until it expires. */
  location: z.string().optional(),
  /** When `location` stops answering. */
  location_expires_at: z.string().optional(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

/** One refused record of an import: the record as sent and why (`GET /api/v2/jobs/{id}/errors`). */
export const JobRecordErrorSchema = z.object({
  user: z.unknown(),
  errors: z.array(z.object({ code: z.string(), message: z.string(), path: z.string().optional() })),
});
export type JobRecordError = z.infer<typeof JobRecordErrorSchema>;
