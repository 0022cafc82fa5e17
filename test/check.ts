// `npm run check`: the type check and the lint in one process over one TypeScript program.
// The lint's two type-aware rules need a checked program; run apart (`tsc` and `eslint .`),
// each built and checked its own, which was most of their time. Here typescript-eslint is
// handed the program tsc's diagnostics were computed on (its `programs` option), so the
// project is type-checked once. `npm run typecheck` and `npm run lint` still run each alone.
// `npm test` runs it at a lower CPU priority (`nice -n 10`) beside vitest: the tests' waits on
// child processes and Redis get the CPU when they need it, and this takes what is left (on two
// cores about 94 s in all instead of 101 s).
import { createRequire } from 'node:module';
import { ESLint } from 'eslint';
import type TypeScript from 'typescript';

// Required, not imported: through `import`, Node first scans typescript.js's 9 MB for ES module
// syntax (its package names no "type") and then for its CommonJS exports, ~0.6 s of CPU.
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;

/** The files tsconfig.build.json compiles (src/ and adapters/). */
function builtFiles(host: TypeScript.ParseConfigFileHost): Set<string> {
  const build = ts.getParsedCommandLineOfConfigFile('tsconfig.build.json', {}, host);
  if (build === undefined) throw new Error('tsconfig.build.json: cannot be read');
  return new Set(build.fileNames);
}

function checkedProgram(): { program: TypeScript.Program; failed: boolean } {
  const host: TypeScript.ParseConfigFileHost = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  };
  const config = ts.getParsedCommandLineOfConfigFile('tsconfig.json', { noEmit: true }, host);
  if (config === undefined) throw new Error('tsconfig.json: cannot be read');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  // What ts.getPreEmitDiagnostics reports, but declaration diagnostics (a declaration emit per
  // file) only for the files `npm run build` emits: tests, bench and eval are never emitted.
  const built = builtFiles(host);
  const diagnostics = ts.sortAndDeduplicateDiagnostics([
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSemanticDiagnostics(),
    ...program
      .getSourceFiles()
      .filter((file) => built.has(file.fileName))
      .flatMap((file) => program.getDeclarationDiagnostics(file)),
  ]);
  if (diagnostics.length > 0) {
    process.stdout.write(
      ts.formatDiagnosticsWithColorAndContext(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => process.cwd(),
        getNewLine: () => '\n',
      }),
    );
  }
  return { program, failed: diagnostics.length > 0 };
}

const { program, failed } = checkedProgram();
const eslint = new ESLint({
  overrideConfig: [
    {
      files: ['**/*.ts'],
      languageOptions: { parserOptions: { project: null, programs: [program] } },
    },
  ],
});
const results = await eslint.lintFiles(['.']);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report !== '') process.stdout.write(report);
const lintErrors = results.reduce((sum, result) => sum + result.errorCount, 0);
process.exitCode = failed || lintErrors > 0 ? 1 : 0;
