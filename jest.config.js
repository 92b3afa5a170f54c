// One jest run over every workspace project, so a single summary closes `pnpm test`.
module.exports = {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*', '<rootDir>/test-e2e', '<rootDir>/test-compat', '<rootDir>/test-browser', '<rootDir>/test-architecture', '<rootDir>/deploy'],
  // testTimeout is a global option: in a multi-project run jest reads it here, not from each
  // project's config (jest.preset.js sets the same for a project run on its own). Why 30 s: see there.
  testTimeout: require('./jest.preset.js')(__dirname).testTimeout,
};
