// The local service on a thread of its own for the concurrent-answers bench (a real service is
// another party, not the client's event loop). After 'hold' (answered 'held') every answer stops
// after its first piece until 'release', so answers stay open while the bench measures.
// Also 'drain' (answered 'drained' once sources are indexed) and 'close'.
import { parentPort, workerData } from 'node:worker_threads';
import { startLocalService } from '../src/local-service/index.js';

const { apiKey } = workerData as { apiKey: string };

let release = () => {};
let gate = Promise.resolve();

const service = await startLocalService({
  apiKeys: [apiKey],
  pacer: (index) => (index === 1 ? gate : Promise.resolve()),
});
parentPort!.on('message', (message: string) => {
  if (message === 'drain') void service.drain().then(() => parentPort!.postMessage('drained'));
  if (message === 'hold') {
    gate = new Promise<void>((resolve) => (release = resolve));
    parentPort!.postMessage('held');
  }
  if (message === 'release') release();
  if (message === 'close') void service.close().then(() => parentPort!.close());
});
parentPort!.postMessage(service.url);
