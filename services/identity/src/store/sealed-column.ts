/** A column holding SecretCipher output, and how its rows are named and bound (the AAD): what `keys rotate-secret` reseals. */
export interface SealedColumn {
  table: string;
  column: string;
  /** The row's primary key columns. */
  key: readonly string[];
  /** Other columns the context is built from. */
  also?: readonly string[];
  context(row: Readonly<Record<string, string | undefined>>): string;
}
