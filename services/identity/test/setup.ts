// Embedded PostgreSQL start-up and RSA key generation take seconds on a shared machine.
jest.setTimeout(60_000);
