/** A time in the operator's zone (`timeZone` for tests), and the same time in UTC for the hover. */
export function timeTexts(iso: string, timeZone?: string, locale?: string): { local: string; utc: string } | undefined {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return undefined;
  const local = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'long', timeZone }).format(date);
  return { local, utc: date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') };
}
