// One jest run over every workspace project, so a single summary closes `pnpm test`.
module.exports = {
  projects: ['<rootDir>/packages/*', '<rootDir>/services/*', '<rootDir>/test-e2e', '<rootDir>/test-compat', '<rootDir>/test-browser', '<rootDir>/test-architecture', '<rootDir>/deploy'],
};
