import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Each file gets its own worker; servers bind random loopback ports.
    pool: 'forks',
    reporters: ['default'],
  },
});
