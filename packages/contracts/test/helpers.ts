import type { z } from 'zod';

/** Paths of every issue of a failed parse (an empty list when the parse succeeded). */
export function issuePaths(result: { success: boolean; error?: z.ZodError }): PropertyKey[][] {
  return result.error?.issues.map((issue) => issue.path) ?? [];
}
