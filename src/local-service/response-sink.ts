// Writing a streamed answer to a client that may leave at any moment. The client is watched
// from the start of the handler (not only once the status is sent): a response whose socket is
// gone is never written to and never waited on, and each backpressure wait removes its own
// listeners whichever way it ends, so a long answer does not pile listeners up.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

export class ResponseSink {
  private readonly left = new AbortController();
  private readonly onClose = () => this.left.abort();

  constructor(private readonly res: ServerResponse) {
    res.on('close', this.onClose);
    if (res.destroyed || res.writableEnded || res.socket?.destroyed === true) this.left.abort();
  }

  /** Aborted when the client has gone (or the connection was cut on purpose). */
  get signal(): AbortSignal {
    return this.left.signal;
  }

  get open(): boolean {
    const { res } = this;
    return !this.left.signal.aborted && !res.destroyed && !res.writableEnded;
  }

  start(headers: Record<string, string>): void {
    if (!this.open) return;
    this.res.writeHead(200, headers);
    this.res.flushHeaders();
  }

  /** Writes when the client is still there; waits for drain unless it leaves meanwhile. */
  async write(piece: string): Promise<void> {
    if (!this.open) return;
    if (this.res.write(piece) || !this.open) return;
    try {
      await once(this.res, 'drain', { signal: this.left.signal });
    } catch {
      // the client left while the buffer was full: nothing more goes out
    }
  }

  /** Closes the socket after what was written is flushed: the body ends without its end. */
  cut(): void {
    this.left.abort();
    if (this.res.socket) this.res.socket.end();
    else this.res.destroy();
  }

  end(): void {
    if (this.open) this.res.end();
  }

  destroy(): void {
    this.res.destroy();
  }

  /** Removes the close watcher; call once the handler is done with the response. */
  dispose(): void {
    this.res.off('close', this.onClose);
  }
}
