module.exports = require('../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/src/global-setup.ts',
  globalTeardown: '<rootDir>/src/global-teardown.ts',
  testTimeout: 60_000,
});
