/** A cell of a CSV file: text, a number, or nothing. */
export type CsvCell = string | number | null | undefined;

/**
 * RFC 4180 text: every cell quoted when it holds a comma, a quote or a line break (quotes doubled),
 * lines ended by CRLF. Text that a spreadsheet would run as a formula (starting with =, +, - or @)
 * is prefixed with ' so that opening an export runs nothing (OWASP's CSV injection advice).
 */
export function toCsv(header: readonly string[], rows: ReadonlyArray<readonly CsvCell[]>): string {
  const cell = (value: CsvCell): string => {
    if (value === null || value === undefined) return '';
    let text = String(value);
    if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return [header, ...rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** Saves `csv` as a file the browser downloads (nothing leaves the browser). */
export function downloadCsv(filename: string, csv: string): void {
  const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
