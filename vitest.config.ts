import { relative } from 'node:path';
import { defineConfig, type Plugin, type TestProjectConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { typescriptFiles } from './test/typescript-files.js';

// Two projects. `unit` (`npm run test:unit`) runs in this process's workers only: loopback
// fakes, the local service in-process, fake or injected clocks, no file over 10 MB, and no child
// process but the local service's file converters, one shared by each worker
// (test/converters.ts). `system` is what needs more: child processes (the CLI, service
// processes killed mid-write), a real Redis server, and hostile files (bombs) against the
// extraction limits. `npm test` runs both, in one pool (CHATBRIDGE_TEST_POOL below).
const system = [
  // Child processes.
  'test/admin/cli-export.test.ts',
  'test/cli.test.ts',
  'test/console/console-e2e.test.ts',
  'test/local-service/processes.test.ts',
  'test/service/cli-connection.test.ts',
  // A real Redis server.
  'test/bridge/replicas-redis.test.ts',
  'test/slack/replicas-intake.test.ts',
  'test/discord/replicas-intake.test.ts',
  'test/state/redis.test.ts',
  'test/state/redis-intake.test.ts',
  'test/state/rate-budget.test.ts',
  // Bombs and the extraction limits they cross.
  'test/local-service/hostile-files.test.ts',
  'test/local-service/extraction/extract-limits.test.ts',
  'test/local-service/extraction/extract-pool.test.ts',
];

// The files that take longest, longest first, mostly waiting on child processes, Redis and
// fake-time steps: started first, their waits overlap the many short files. Without this a
// fresh clone (no timings cached yet) runs larger files first, and these ran last, one fork
// idle beside them.
const startFirst = [
  'test/local-service/extraction/extract-pool.test.ts',
  'test/slack/replicas-intake.test.ts',
  'test/local-service/processes.test.ts',
  'test/console/console-e2e.test.ts',
  'test/local-service/hostile-files.test.ts',
  'test/state/redis.test.ts',
  'test/slack/load.test.ts',
  'test/discord/replicas-intake.test.ts',
  'test/service/cli-connection.test.ts',
];

class StartFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = startFirst.indexOf(relative(file.project.config.root, file.moduleId));
      return at < 0 ? startFirst.length : at;
    };
    return (await super.sort(files))
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

// A test worker fetches each TypeScript module it imports from this process, one import after
// another, and a module is compiled (esbuild, then Vite's SSR transform) when first asked for:
// the workers wait on those round trips (in a unit run ~16 s summed over the files' imports).
// Compiled all at once as the server starts instead, they are ready when asked (~9 s): only the
// server that runs the tests (a project's, or the one pool's) does it.
const compiledFolders = ['src', 'adapters', 'test', 'eval'];

function preTransform(): Plugin {
  return {
    name: 'chatbridge:pre-transform',
    configureServer(server) {
      const runsTests = onePool || server.config.test?.name !== undefined;
      if (!runsTests) return;
      const files = compiledFolders.flatMap((folder) =>
        typescriptFiles(server.config.root, folder),
      );
      setImmediate(() => {
        for (const file of files) void server.environments.ssr.warmupRequest(file);
      });
    },
  };
}

// `npm test` sets CHATBRIDGE_TEST_POOL=one: every file in one pool, as one project. vitest runs
// projects one after another (each its own forks, the libraries imported again, a fork idle
// while the other finishes the project's last file); in one pool a system file's waits on
// child processes overlap unit files, and each fork imports the libraries once.
const onePool = process.env.CHATBRIDGE_TEST_POOL === 'one';

const projects: TestProjectConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'unit',
      include: ['test/**/*.test.ts'],
      exclude: system,
    },
  },
  {
    extends: true,
    test: {
      name: 'system',
      include: system,
      // The CLI's child processes start from JavaScript built once for the run.
      globalSetup: ['test/build-once.ts'],
    },
  },
];

export default defineConfig({
  plugins: [preTransform()],
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Test files share a worker's module cache: the libraries are imported once per worker, not
    // once per file (that was most of the suite's time). Files share no state: each opens its
    // own servers (random loopback ports), stores and fakes, and restores fake timers.
    pool: 'forks',
    // Two forks even on a 2-core machine (vitest's default there is one): much of a test's
    // time is waiting on loopback servers, child processes and timers, not on the CPU.
    poolOptions: { forks: { isolate: false, minForks: 1, maxForks: 2 } },
    reporters: ['default'],
    // vitest's runner, less two costs it pays in every worker (see the file).
    runner: './test/runner.ts',
    sequence: { sequencer: StartFirst },
    ...(onePool
      ? { include: ['test/**/*.test.ts'], globalSetup: ['test/build-once.ts'] }
      : { projects }),
  },
});
