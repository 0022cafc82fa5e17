// The test runner (test/runner.ts) keeps what vitest's own does for a test's reader: the
// project's frames mapped to the TypeScript written, third-party frames as Node prints them,
// and each module's import time reported once, with the file that loaded it.
import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import { expect, it } from 'vitest';
import ChatbridgeTestRunner from './runner.js';

it("maps this file's frames to the TypeScript as written", () => {
  // esbuild drops the annotation before `new Error`: only a mapped frame has the written column.
  const typed: Array<Record<string, number>> = [];
  const error = new Error(`after ${typed.length}`); // prettier-ignore
  const source = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  const line = source.findIndex((text) => text.includes('const error = new Error(`after'));
  const column = source[line]!.indexOf('new Error') + 1;
  expect(error.stack).toContain(`runner.test.ts:${line + 1}:${column}`);
});

it("leaves a third-party frame as Node prints it, not mapped to the library's own sources", () => {
  let stack = '';
  createParser({ onEvent: () => void (stack = new Error('in a callback').stack ?? '') }).feed(
    'data: x\n\n',
  );
  expect(stack).toMatch(/node_modules\/eventsource-parser\/dist\/index\.js:\d+:\d+/);
  expect(stack).not.toMatch(/eventsource-parser\/.*src\//);
});

it('reports an import time once, for the first file that loaded the module', () => {
  const executed = new Map([['/fixture/a.ts', { duration: 3, selfTime: 1 }]]);
  const runner = Object.create(ChatbridgeTestRunner.prototype, {
    workerState: { value: { moduleExecutionInfo: executed } },
  }) as ChatbridgeTestRunner;
  expect(runner.getImportDurations()).toEqual({ '/fixture/a.ts': { selfTime: 1, totalTime: 3 } });
  executed.set('/fixture/b.ts', { duration: 2, selfTime: 2 });
  expect(runner.getImportDurations()).toEqual({ '/fixture/b.ts': { selfTime: 2, totalTime: 2 } });
});
