import { ErrorCodes } from '@smsauth/contracts';
import { DatabaseUnavailableError, isDatabaseUnavailable, toDatabaseUnavailable } from '../../src/store/availability';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('telling an unreachable database from a failing query', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a server restart (57P01 admin_shutdown)', withCode('terminating connection due to administrator command', '57P01')],
    ['a server still starting (57P03)', withCode('the database system is starting up', '57P03')],
    ['a connection exception (class 08)', withCode('connection failure', '08006')],
    ['a connection dropped mid-query', new Error('Connection terminated unexpectedly')],
    ['a connect timeout of the pool', new Error('timeout exceeded when trying to connect')],
    ['every address of a host refusing', Object.assign(new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')]), { code: 'ECONNREFUSED' })],
  ])('treats %s as the database being unavailable', (_case, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(toDatabaseUnavailable(err)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it.each([
    ['a unique violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['an undefined table', withCode('relation "nope" does not exist', '42P01')],
    ['a syntax error', withCode('syntax error at or near "SELEC"', '42601')],
    ['an ordinary bug', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a non-error value', 'ECONNREFUSED'],
  ])('leaves %s alone (it stays a 500 or a domain error)', (_case, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
    expect(toDatabaseUnavailable(err)).toBe(err);
  });

  it('answers 503 service_unavailable with Retry-After and keeps the driver text out of the body', () => {
    const err = new DatabaseUnavailableError(withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'));
    expect(err.status).toBe(503);
    expect(err.toBody()).toEqual({ error: ErrorCodes.SERVICE_UNAVAILABLE, error_description: 'The service is temporarily unavailable. Please try again shortly.' });
    expect(err.options.headers).toEqual({ 'Retry-After': '5' });
    // Readiness and the log still say why.
    expect(err.message).toBe('database unavailable: connect ECONNREFUSED 10.0.0.5:5432');
  });
});
