// PGlite's CommonJS build loads Node built-ins with dynamic import(), which jest's VM cannot
// run without --experimental-vm-modules; letting swc transform it turns those into require().
const preset = require('../../jest.preset.js')(__dirname);
const swc = Object.values(preset.transform)[0];
module.exports = {
  ...preset,
  transform: { ...preset.transform, '@electric-sql/pglite/.+\\.cjs$': swc },
  // Embedded PostgreSQL start-up and RSA key generation take seconds on a shared machine.
  setupFilesAfterEnv: ['<rootDir>/test/setup.ts'],
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/@electric-sql\\+pglite[^/]*/node_modules/)?@electric-sql/pglite/)'],
};
