import type { AirportNames } from './airports';

export type AirportNameAnswer = { status: 200 | 400; text: string };

const THREE_LETTERS = /^[A-Za-z]{3}$/;

/** Client text echoed in an error, bounded. */
function echo(value: string): string {
  return value.length > 64 ? `${value.slice(0, 64)}...` : value;
}

/** GET /airportName's answer for the raw `iataCode` query value (case-insensitive). */
export function answerAirportName(names: AirportNames, iataCode: unknown): AirportNameAnswer {
  if (iataCode === undefined || iataCode === '') return { status: 400, text: 'No IATA code provided.' };
  const code = Array.isArray(iataCode) ? iataCode.map(String).join(',') : String(iataCode);
  if (!THREE_LETTERS.test(code)) return { status: 400, text: `Invalid IATA code: ${echo(code)}` };
  const name = names.get(code.toUpperCase());
  if (name === undefined) return { status: 400, text: `IATA code not found : ${code}` };
  return { status: 200, text: name };
}
