import type { RequestHandler } from 'express';
import type { AirportNames } from '../domain/airports';
import { answerAirportName } from '../domain/iata';

/** operationId `airportName`: the gateway has already checked the caller's token. */
export function airportNameHandler(names: AirportNames): RequestHandler {
  return (req, res) => {
    const { status, text } = answerAirportName(names, req.query.iataCode);
    res.status(status).type('text/plain').send(text);
  };
}
