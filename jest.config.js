/** Two projects: fast unit tests of pure logic, and e2e tests that boot the real server. */
// Tests are transpiled file by file (fast); `npm run build` type-checks everything.
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json', diagnostics: false }];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': tsJest },
  moduleFileExtensions: ['ts', 'js', 'json'],
};
module.exports = {
  testTimeout: 60000,
  // The suite runs in one worker process (\`--maxWorkers=1\`), recycled between test files once
  // it holds more than this: every test file's VM context leaks part of its modules (a known
  // Node/jest limitation), and in one process for the whole suite that grew past V8's heap limit.
  workerIdleMemoryLimit: '1GB',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
  ],
};
