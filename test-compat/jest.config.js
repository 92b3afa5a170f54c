module.exports = require('../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/src/global-setup.ts',
  globalTeardown: '<rootDir>/src/global-teardown.ts',
  // Makes each test process trust the suite's self-signed certificate (see the file for why here).
  testEnvironment: '<rootDir>/src/tls-trusting-environment.ts',
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
});
