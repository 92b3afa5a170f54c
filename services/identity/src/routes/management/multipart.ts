import { ErrorCodes, MAX_USER_IMPORT_FILE_BYTES } from '@smsauth/contracts';
import { HttpError, type Operation } from '@smsauth/service-kit';
import type { RequestHandler } from 'express';
import multer from 'multer';

/** The media type of an upload; an operation declaring it gets the upload parser as a guard. */
export const MULTIPART = 'multipart/form-data';

// In memory: the file is bounded (MAX_USER_IMPORT_FILE_BYTES) and goes to the database whole.
const usersUpload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: MAX_USER_IMPORT_FILE_BYTES, files: 1, fields: 10, fieldSize: 1024 },
}).single('users');

/** Parses a `users` upload into req.file (and the form's text fields into req.body); 413 over the size limit. */
const parseUsersUpload: RequestHandler = (req, res, next) => {
  usersUpload(req, res, (err: unknown) => {
    if (!err) return next();
    if (err instanceof multer.MulterError && err.code === 'LIMIT_FILE_SIZE') {
      return next(new HttpError(413, ErrorCodes.PAYLOAD_TOO_LARGE, `users: the file is over the limit of ${MAX_USER_IMPORT_FILE_BYTES} bytes; split it into several imports`));
    }
    if (err instanceof multer.MulterError) return next(new HttpError(400, ErrorCodes.INVALID_REQUEST, `${err.field ?? 'body'}: ${err.message}`));
    return next(new HttpError(400, ErrorCodes.INVALID_REQUEST, 'The body is not a valid multipart/form-data upload'));
  });
};

/** The body parser an operation needs besides JSON: the upload parser for a multipart body. */
export function bodyParsersOf(operation: Operation): RequestHandler[] {
  return operation.body?.mediaTypes?.includes(MULTIPART) ? [parseUsersUpload] : [];
}
