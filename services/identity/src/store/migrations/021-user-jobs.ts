/**
 * Bulk user jobs (`/api/v2/jobs`): imports and exports run in the background by whichever
 * replica holds a job's lease (lease_token until lease_expires_at, as log streams do), so a
 * job runs on one replica at a time and resumes after a restart from its committed cursor.
 * Expand-only: new tables, nothing existing changes.
 */
export const sql = `
CREATE TABLE user_jobs (
  id               text PRIMARY KEY,
  type             text NOT NULL CHECK (type IN ('users_import', 'users_export')),
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
  connection_id    text REFERENCES connections(id) ON DELETE CASCADE,
  external_id      text,
  -- Import: upsert, send_completion_email. Export: format, fields, limit.
  options          jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- Import: the users file as uploaded (a JSON array), read again when a job resumes.
  input            text,
  -- Import: records [0, cursor) are done (imported or refused), committed with their users.
  cursor           integer NOT NULL DEFAULT 0,
  total            integer NOT NULL DEFAULT 0,
  inserted         integer NOT NULL DEFAULT 0,
  updated          integer NOT NULL DEFAULT 0,
  failed           integer NOT NULL DEFAULT 0,
  -- Steps that failed in a row (a batch committing resets it); the job fails at the runner's limit.
  attempts         integer NOT NULL DEFAULT 0,
  failure          text,
  lease_token      text,
  lease_expires_at timestamptz,
  -- Export: the gzip file.
  export_file      bytea,
  created_at       timestamptz NOT NULL,
  completed_at     timestamptz
);
CREATE INDEX user_jobs_runnable ON user_jobs (created_at) WHERE status IN ('pending', 'processing');

CREATE TABLE user_job_errors (
  job_id  text NOT NULL REFERENCES user_jobs(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  -- The record as sent, as JSON text: jsonb would reorder it and cannot hold the U+0000 it may carry.
  "user"  text NOT NULL,
  errors  jsonb NOT NULL,
  PRIMARY KEY (job_id, ordinal)
);

-- Download links of completed exports, one per GET of the job (as a presigned URL is): the
-- SHA-256 of the random token the URL carries, never the token itself.
CREATE TABLE user_job_downloads (
  token_hash text PRIMARY KEY,
  job_id     text NOT NULL REFERENCES user_jobs(id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);
CREATE INDEX user_job_downloads_expiry ON user_job_downloads (expires_at);
`;
