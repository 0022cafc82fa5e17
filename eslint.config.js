import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Imports point one way: adapters → bridge/admin → service/state.
const noUpward = (message, patterns) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      '.test-build/**',
      '.scratch/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-console': 'off',
    },
  },
  // The two type-aware rules, no-floating-promises and no-misused-promises, run in oxlint on
  // TypeScript 7's checker (.oxlintrc.json): here they would need TypeScript 5.9 to check the
  // whole program again.
  {
    // The type check's time: relating node-redis's generic createClient to a function type
    // (its command maps' variance) cost tsc 150,000 instantiations and ~10 s a run, each time
    // a file wrote it. Name the client as src/state/keyv.ts's RedisClient instead.
    files: ['**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "TSTypeReference[typeName.name='ReturnType'] TSTypeQuery[exprName.name='createClient']",
          message:
            'Type a node-redis client as RedisClient (src/state/keyv.ts), not ReturnType<typeof createClient>.',
        },
      ],
    },
  },
  {
    // Small units (issue 22): a function, nested functions included, fits on a screen or two.
    files: ['src/bridge/**/*.ts', 'src/service/**/*.ts', 'adapters/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80, IIFEs: true }] },
  },
  {
    files: ['src/service/**/*.ts', 'src/state/**/*.ts'],
    rules: noUpward('service and state are the bottom layer', [
      '**/bridge/**',
      '**/admin/**',
      '**/adapters/**',
      '**/local-service/**',
      '@slack/*',
      'discord.js',
    ]),
  },
  {
    files: ['src/bridge/**/*.ts', 'src/admin/**/*.ts'],
    rules: noUpward('bridge and admin know no platform', [
      '**/adapters/**',
      '**/local-service/**',
      '@slack/*',
      'discord.js',
    ]),
  },
  {
    files: ['src/local-service/**/*.ts'],
    rules: noUpward('the local service stands alone beside the client', [
      '**/bridge/**',
      '**/admin/**',
      '**/adapters/**',
      '@slack/*',
      'discord.js',
    ]),
  },
);
