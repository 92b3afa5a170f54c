// Shared jest settings: swc transpiles TypeScript (typecheck is a separate step), and the
// "@smsauth/source" export condition makes workspace packages resolve to their sources,
// so tests never depend on a stale dist/.
const path = require('node:path');

// Dependencies that jest's CommonJS VM cannot load as published, so swc transforms them too:
// jose (under jwks-rsa) ships ES modules only; PGlite's .cjs build loads Node built-ins with
// dynamic import(), which the VM rejects without --experimental-vm-modules. openid-client and
// oauth4webapi (under @auth0/auth0-auth-js, used by test-compat) are ES modules only too, and
// so is json-schema-faker (the OpenAPI fuzz suites' sampler), and Auth.js (@auth/core, @auth/express).
const TRANSFORMED_DEPENDENCIES = ['jose', '@electric-sql/pglite', 'openid-client', 'oauth4webapi', 'json-schema-faker', '@auth/core', '@auth/express'];
const pnpmDir = (name) => name.replace('/', '\\+');
const transformIgnorePatterns = [
  `/node_modules/(?!(\\.pnpm/(${TRANSFORMED_DEPENDENCIES.map(pnpmDir).join('|')})@[^/]+/node_modules/)?(${TRANSFORMED_DEPENDENCIES.join('|')})/)`,
];

// json-schema-faker publishes an `import` entry only, which jest's CommonJS resolver does not
// look for: point it at that file (swc transforms it, above).
const ESM_ONLY_ENTRIES = {
  '^json-schema-faker$': path.join(__dirname, 'packages/test-support/node_modules/json-schema-faker/dist/index.js'),
};

// Test identities on embedded PGlite start from a migrated snapshot kept here (identity's
// PGLITE_SNAPSHOT_DIR): initdb and the migrations run once per change of a migration, not once per
// identity. Set in the environment before jest forks its workers, so they and the services the
// suites spawn inherit it; the suites' identity configs pass it on.
process.env.PGLITE_SNAPSHOT_DIR ??= path.join(__dirname, 'node_modules', '.cache', 'smsauth', 'pglite-snapshots');

module.exports = function preset(dir, overrides = {}) {
  return {
    displayName: path.basename(dir),
    rootDir: dir,
    testEnvironment: 'node',
    testEnvironmentOptions: { customExportConditions: ['@smsauth/source', 'node', 'node-addons'] },
    testMatch: ['<rootDir>/test/**/*.test.ts'],
    transformIgnorePatterns,
    transform: {
      '^.+\\.[cm]?[tj]sx?$': [
        require.resolve('@swc/jest'),
        { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
      ],
    },
    moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
    // Most suites are integration tests: real HTTP, PostgreSQL, RS256 and scrypt, a browser. On
    // the 2-core CI machine under load, several tests that do a few such round trips outlasted
    // jest's default 5 s (receipts, the API docs bundle) while doing nothing wrong. A hung test
    // still fails, after 30 s; a suite that needs more says so itself.
    testTimeout: 30_000,
    moduleNameMapper: ESM_ONLY_ENTRIES,
    ...overrides,
  };
};
