// Converter processes shared by the local services the tests start in one worker (files share a
// worker: isolate: false). Each service would otherwise start its own on its first text or
// file, a Node process at about 0.4 s of CPU, nearly thirty in a unit run. Default limits: a
// test of the limits passes `extraction` and gets a pool of its own, and the processes' life is
// tested on pools of their own (extraction/extract-pool.test.ts). Never closed: idle converters
// hold nothing open, and each ends with the worker that started it (extract-worker.ts exits on
// disconnect).
import { ExtractionPool } from '../src/local-service/extraction/index.js';

export const sharedConverters = new ExtractionPool();
