// The test runner: vitest's own, less two costs it pays in every worker.
import { VitestTestRunner } from 'vitest/runners';

// 1. Stack traces. vitest maps every frame of every stack trace a worker formats through source
// maps, third-party frames included: the first error whose stack is read in a frame of pdfjs
// (core-js feature-tests `new Error().stack` as pdfjs loads) reads and parses pdfjs's 2 and 5 MB
// maps, about 0.8 s a worker. Frames under node_modules keep Node's own text (the built file and
// line, as Node prints them); the project's frames are mapped as before.
const thirdPartyAsBuilt = Symbol.for('chatbridge.thirdPartyAsBuilt');
const mapFrames = Error.prepareStackTrace as
  (typeof Error.prepareStackTrace & { [thirdPartyAsBuilt]?: true }) | undefined;
if (mapFrames && !mapFrames[thirdPartyAsBuilt]) {
  // vitest's mapper leaves a native frame as it is, printed by its own toString.
  const asBuilt = (frame: NodeJS.CallSite): NodeJS.CallSite =>
    new Proxy(frame, {
      get(target, key) {
        if (key === 'isNative') return () => true;
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  Error.prepareStackTrace = Object.assign(
    (error: Error, frames: NodeJS.CallSite[]): unknown =>
      mapFrames(
        error,
        frames.map((frame) =>
          frame.getFileName()?.includes('/node_modules/') ? asBuilt(frame) : frame,
        ),
      ),
    { [thirdPartyAsBuilt]: true as const },
  );
}

// 2. Import durations. After each file is collected, vitest's runner reports every module the
// worker has executed so far, with its import time, and sends it to the main process
// (v8-serialized, then JSON as an array of byte values over the fork's IPC channel). With files
// sharing a worker (isolate: false) that list is the whole worker's: ~27 KB a file, ~1.8 MB a
// fork in a unit run, encoded and parsed again for every file. Reported here are only the modules
// that file loaded first, which is what the durations mean for it.
type ImportDurations = ReturnType<VitestTestRunner['getImportDurations']>;

// Per worker, not per runner: the worker's module cache outlives a runner.
const reported = new Set<string>();

export default class ChatbridgeTestRunner extends VitestTestRunner {
  override getImportDurations(): ImportDurations {
    const fresh: ImportDurations = {};
    for (const [path, duration] of Object.entries(super.getImportDurations())) {
      if (reported.has(path)) continue;
      reported.add(path);
      fresh[path] = duration;
    }
    return fresh;
  }
}
