/** Prints rows (objects) as an aligned text table under a title. */
export function printTable(title, rows) {
  if (rows.length === 0) return;
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const text = (value) => (value === undefined || value === null ? '' : typeof value === 'number' ? formatNumber(value) : String(value));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ');
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(columns.map((c) => text(row[c]))));
}

function formatNumber(value) {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

export const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
/** The middle value (the upper of the two middle ones for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
