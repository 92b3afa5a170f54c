// Component tests of the console's own logic, in jsdom with @testing-library/preact (the browser
// tests in test-browser drive the built console against a whole stack).
module.exports = require('../../jest.preset.js')(__dirname, {
  testEnvironment: 'jsdom',
  testEnvironmentOptions: { customExportConditions: ['require', 'default'] },
  testMatch: ['<rootDir>/test/**/*.test.ts?(x)'],
  transform: {
    '^.+\\.[cm]?[tj]sx?$': [
      require.resolve('@swc/jest'),
      {
        jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022', transform: { react: { runtime: 'automatic', importSource: 'preact' } } },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'cjs', 'json'],
});
