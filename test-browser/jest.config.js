module.exports = require('../jest.preset.js')(__dirname, {
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
});
