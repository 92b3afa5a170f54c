module.exports = require('../jest.preset.js')(__dirname, {
  globalSetup: '<rootDir>/src/global-setup.ts',
  globalTeardown: '<rootDir>/src/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
});
