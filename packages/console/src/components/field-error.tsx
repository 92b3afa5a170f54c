import { ApiError } from '../api';

/** The API's refusals of `path` or of a field inside it (`options.channels` covers `options.channels.BR.1`), as the API said them. */
export function refusalsOf(error: unknown, path: string, exact = false): string[] {
  if (!(error instanceof ApiError)) return [];
  return error.details.filter((d) => d.path === path || (!exact && d.path.startsWith(`${path}.`))).map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
}

/** Attributes tying a refused field to its message (none while the API has not refused it). */
export function refusedField(error: unknown, path: string, id: string): Record<string, string> {
  return refusalsOf(error, path).length ? { 'aria-invalid': 'true', 'aria-describedby': id } : {};
}

/** The API's words about one field, beside the field (`id` is what the field's aria-describedby names). */
export function FieldError({ error, path, id, exact }: { error: unknown; path: string; id: string; exact?: boolean }) {
  const refusals = refusalsOf(error, path, exact);
  if (!refusals.length) return null;
  return (
    <p class="error field-error" id={id}>
      {refusals.join('; ')}
    </p>
  );
}
