module.exports = require('../../jest.preset.js')(__dirname, {
  // Embedded PostgreSQL start-up and RSA key generation take seconds on a shared machine.
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
});
