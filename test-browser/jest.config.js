module.exports = require('../jest.preset.js')(__dirname, {
  testTimeout: 120_000,
});
