import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { airportNamesFrom, airportRowsFromCsv, bundledAirportNames, loadAirportNames } from '../src/domain/airports';
import { parseCsv } from '../src/domain/csv';

describe('airport data', () => {
  it('loads the 4,517 IATA codes of the bundled OurAirports data', () => {
    const names = bundledAirportNames();
    expect(names.size).toBe(4517);
    expect(names.get('SFO')).toBe('San Francisco International Airport');
    expect(names.get('BOS')).toBe('Logan International Airport');
  });

  it('loads the bundled data once per process', () => {
    expect(loadAirportNames()).toBe(bundledAirportNames());
  });

  it('reads a full OurAirports airports.csv from AIRPORTS_FILE', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airports-'));
    const file = join(dir, 'airports.csv');
    writeFileSync(
      file,
      [
        '"id","ident","type","name","latitude_deg","longitude_deg","iata_code","keywords"',
        '3878,"KSFO","large_airport","San Francisco International Airport",37.6,-122.3,"SFO","QSF, QBA"',
        '1,"XCLO","closed","Old ""Closed"" Field",0,0,"ZZZ",""',
        '2,"XNEW","small_airport","Smallville, Strip",0,0,"ZZZ",""',
        '3,"XNO","heliport","No Code Pad",0,0,"",""',
        '4,"XMUL","medium_airport","Line',
        'Break Airport",0,0,"mlb",""',
      ].join('\r\n') + '\r\n',
    );
    const names = loadAirportNames(file);
    expect(names.get('SFO')).toBe('San Francisco International Airport');
    expect(names.get('ZZZ')).toBe('Smallville, Strip');
    expect(names.get('MLB')).toBe('Line\r\nBreak Airport');
    expect(names.size).toBe(3);
  });

  it('refuses a CSV without the needed columns', () => {
    expect(() => airportRowsFromCsv('id,name\n1,Somewhere\n')).toThrow(/iata_code, name and type/);
  });

  it('prefers an open, larger airport when two rows share a code', () => {
    const names = airportNamesFrom([
      { iata_code: 'ABC', name: 'Closed Field', type: 'closed' },
      { iata_code: 'ABC', name: 'Open Field', type: 'medium_airport' },
      { iata_code: 'ABC', name: 'Heliport', type: 'heliport' },
    ]);
    expect(names.get('ABC')).toBe('Open Field');
  });
});

describe('CSV parser', () => {
  it('splits plain fields and records (LF and CRLF)', () => {
    expect(parseCsv('a,b,c\n1,2,3\r\n4,5,6')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
      ['4', '5', '6'],
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields', () => {
    expect(parseCsv('"a, b","say ""hi""","x\ny"\n')).toEqual([['a, b', 'say "hi"', 'x\ny']]);
  });

  it('keeps empty fields, including a trailing one', () => {
    expect(parseCsv('a,,c,\n')).toEqual([['a', '', 'c', '']]);
  });

  it('skips a byte-order mark', () => {
    expect(parseCsv('\ufeffid,name\n')).toEqual([['id', 'name']]);
  });

  it('refuses a file that ends inside a quoted field', () => {
    expect(() => parseCsv('"open')).toThrow(/inside a quoted field/);
  });
});
