// One jest run over every workspace project, so a single summary closes `pnpm test`.
module.exports = {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*', '<rootDir>/test-e2e', '<rootDir>/test-compat', '<rootDir>/test-browser', '<rootDir>/test-architecture', '<rootDir>/deploy'],
  // testTimeout is a global option: in a multi-project run jest reads it here, not from each
  // project's config (jest.preset.js sets the same for a project run on its own). Why 30 s: see there.
  testTimeout: require('./jest.preset.js')(__dirname).testTimeout,
  // A worker that holds more than this after a test file is replaced by a fresh one. Seen in a CI
  // run on 2026-11-29: the two workers at 5.2 and 4.5 GB resident after ~130 files (embedded
  // PGlite instances and browsers' helpers leave memory a worker's heap never returns), and the
  // run slowing as they grew. Global option: read here, not from the projects.
  workerIdleMemoryLimit: '1536MB',
};
