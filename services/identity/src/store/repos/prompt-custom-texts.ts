import type { SqlExecutor } from '../sql-client';

/** One prompt's texts in one language (migration 027): `{screen: {key: text}}`. */
export type StoredScreenTexts = Record<string, Record<string, string>>;

export function promptCustomTextsRepo(db: SqlExecutor) {
  return {
    async find(prompt: string, language: string): Promise<StoredScreenTexts | undefined> {
      const { rows } = await db.query<{ texts: StoredScreenTexts }>('SELECT texts FROM prompt_custom_texts WHERE prompt = $1 AND language = $2', [prompt, language]);
      return rows[0]?.texts;
    },

    /** Every prompt's texts in one language, by prompt. */
    async forLanguage(language: string): Promise<Array<{ prompt: string; texts: StoredScreenTexts }>> {
      const { rows } = await db.query<{ prompt: string; texts: StoredScreenTexts }>(
        'SELECT prompt, texts FROM prompt_custom_texts WHERE language = $1 ORDER BY prompt',
        [language],
      );
      return rows;
    },

    /** Replaces the prompt's texts in the language; an empty `texts` removes them. */
    async replace(prompt: string, language: string, texts: StoredScreenTexts, now: Date): Promise<void> {
      if (Object.keys(texts).length === 0) {
        await db.query('DELETE FROM prompt_custom_texts WHERE prompt = $1 AND language = $2', [prompt, language]);
        return;
      }
      await db.query(
        `INSERT INTO prompt_custom_texts (prompt, language, texts, updated_at) VALUES ($1, $2, $3::json, $4)
         ON CONFLICT (prompt, language) DO UPDATE SET texts = EXCLUDED.texts, updated_at = EXCLUDED.updated_at`,
        [prompt, language, JSON.stringify(texts), now],
      );
    },
  };
}
