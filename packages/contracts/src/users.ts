import { z } from 'zod';
import { PhoneNumberInputSchema } from './phone';

// Management API bodies that create and change users (`POST|PATCH /api/v2/users`), in the
// reference product's shape. The record itself is UserRecordSchema (management.ts).

/** Serialised size allowed for each metadata object (the body limit is 100 kB). */
export const MAX_METADATA_BYTES = 16_384;

/** Metadata property names: the reference product refuses dots and a leading `$`. */
const MetadataKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^(?!\$)[^.]*$/, { message: 'a metadata property name must not contain "." or start with "$"' })
  .refine((key) => key !== '__proto__', { message: 'a metadata property may not be named __proto__' });

function withinMetadataSize(value: Record<string, unknown>): boolean {
  return Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES;
}

/**
 * `user_metadata` / `app_metadata`: a JSON object. On PATCH its top-level properties are
 * merged into the stored object, `null` removes a property and `{}` empties the object; a
 * nested object replaces the stored one whole.
 */
export const MetadataSchema = z
  // Values are whatever JSON the body held (z.json() would give the OpenAPI document a recursive $defs).
  .record(MetadataKeySchema, z.unknown())
  .refine(withinMetadataSize, { message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` });
export type Metadata = z.infer<typeof MetadataSchema>;

/** `POST /api/v2/users`: a user of an sms connection, e.g. one allowed in where `disable_signup` is on. */
export const UserCreateSchema = z.strictObject({
  /** The connection's name; it must exist and be an sms connection. */
  connection: z.string().min(1).max(128),
  /** International form, formatting allowed; stored in E.164 (400 when it is not a valid number). */
  phone_number: PhoneNumberInputSchema,
  phone_verified: z.boolean().default(false),
  blocked: z.boolean().default(false),
  user_metadata: MetadataSchema.default({}),
  app_metadata: MetadataSchema.default({}),
});
export type UserCreate = z.infer<typeof UserCreateSchema>;

/**
 * `PATCH /api/v2/users/{id}`. A new `phone_number` must be free on the connection (409) and,
 * unless `phone_verified` is given too, is unverified. `connection`, when sent, names the
 * user's own connection (the reference SDKs send it).
 */
export const UserUpdateSchema = z.strictObject({
  connection: z.string().min(1).max(128).optional(),
  phone_number: PhoneNumberInputSchema.optional(),
  phone_verified: z.boolean().optional(),
  blocked: z.boolean().optional(),
  user_metadata: MetadataSchema.optional(),
  app_metadata: MetadataSchema.optional(),
});
export type UserUpdate = z.infer<typeof UserUpdateSchema>;
