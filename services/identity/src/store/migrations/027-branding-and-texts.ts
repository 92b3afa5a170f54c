/**
 * The tenant's brand and texts (issue 45), written through Auth0's `/api/v2/branding`,
 * `/api/v2/prompts`, `/api/v2/prompts/{prompt}/custom-text/{language}` and
 * `/api/v2/tenants/settings`, read by the hosted pages. `tenant_settings` and `branding` hold one
 * row each (the tenant's); the Auth0 settings nothing acts on are `json`, not `jsonb`, so that they
 * are shown back in the order they were written and an export re-exports to the same text. Custom
 * texts are one row per prompt and language. Only adds tables, so replicas of the previous release
 * keep working on the new schema.
 */
export const sql = `
CREATE TABLE tenant_settings (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  enabled_locales text[],
  auth0_settings json NOT NULL DEFAULT '{}',
  prompt_settings json NOT NULL DEFAULT '{}',
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE branding (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  logo_url text,
  favicon_url text,
  font_url text,
  primary_color text,
  page_background_color text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE prompt_custom_texts (
  prompt text NOT NULL,
  language text NOT NULL,
  texts json NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (prompt, language)
);
`;
