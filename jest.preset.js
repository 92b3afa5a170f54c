// Shared jest settings: swc transpiles TypeScript (typecheck is a separate step), and the
// "@smsauth/source" export condition makes workspace packages resolve to their sources,
// so tests never depend on a stale dist/.
const path = require('node:path');

module.exports = function preset(dir, overrides = {}) {
  return {
    displayName: path.basename(dir),
    rootDir: dir,
    testEnvironment: 'node',
    testEnvironmentOptions: { customExportConditions: ['@smsauth/source', 'node', 'node-addons'] },
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    transform: {
      '^.+\\.(t|j)sx?$': [
        require.resolve('@swc/jest'),
        { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
      ],
    },
    moduleFileExtensions: ['ts', 'js', 'json'],
    ...overrides,
  };
};
