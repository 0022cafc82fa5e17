// A reply surface that records every call with its (fake) time, for assertions on what the user
// saw and when. Calls can be made slow or made to fail.
import type {
  EarlierMessage,
  FinalContent,
  ReplyMessage,
  ReplyTarget,
  SurfaceLimits,
} from '../../../src/bridge/types.js';
import type { FakeClock } from './fake-clock.js';

export type CallKind = 'open' | 'update' | 'finish';

// One order across every target of a test, to tell which answer's calls came first.
let sequence = 0;

export interface RecordedCall {
  /** Position of this call among all calls of all targets. */
  seq?: number;
  kind: CallKind | 'working' | 'stopWorking';
  at: number;
  /** Index of the message (order of openMessage calls). */
  message: number;
  text?: string;
  content?: FinalContent;
  failed?: boolean;
}

export class RecordedMessage {
  /** Every text sent: the opening text, then each update. */
  readonly texts: string[] = [];
  final?: FinalContent;
  finishCount = 0;
  inFlight = 0;
  maxInFlight = 0;
  constructor(readonly index: number) {}
  get latest(): string {
    return this.final?.text ?? this.texts[this.texts.length - 1] ?? '';
  }
}

export class RecordingTarget implements ReplyTarget {
  readonly calls: RecordedCall[] = [];
  readonly messages: RecordedMessage[] = [];
  /** How long each update (and open) takes, in fake ms. */
  callDelayMs = 0;
  /** The thread's earlier messages, where the test gives the thread some. */
  earlierMessages?: (limit: number) => Promise<EarlierMessage[]>;
  private readonly failures: Array<{ kind: CallKind; error: Error; skip: number }> = [];

  constructor(
    readonly limits: SurfaceLimits,
    private readonly clock: FakeClock,
  ) {
    const push = this.calls.push.bind(this.calls);
    this.calls.push = (...calls: RecordedCall[]) =>
      push(...calls.map((c) => ({ ...c, seq: sequence++ })));
  }

  /**
   * The next call of this kind throws `error` (queued in order); with `skip`, that many calls of
   * the kind succeed first.
   */
  failNext(kind: CallKind, error: Error, skip = 0): void {
    this.failures.push({ kind, error, skip });
  }

  async showWorking(): Promise<void> {
    this.calls.push({ kind: 'working', at: this.clock.now(), message: -1 });
  }

  async stopWorking(): Promise<void> {
    this.calls.push({ kind: 'stopWorking', at: this.clock.now(), message: -1 });
  }

  async openMessage(text: string): Promise<ReplyMessage> {
    const index = this.messages.length;
    const failure = this.takeFailure('open');
    this.calls.push({
      kind: 'open',
      at: this.clock.now(),
      message: index,
      text,
      failed: !!failure,
    });
    await this.delay();
    if (failure) throw failure;
    const message = new RecordedMessage(index);
    message.texts.push(text);
    this.messages.push(message);
    return {
      update: (next) => this.update(message, next),
      finish: (content) => this.finish(message, content),
    };
  }

  /** The concatenated final texts of every message, as the user finally reads them. */
  get finalTexts(): string[] {
    return this.messages.map((m) => m.final?.text ?? '');
  }

  get lastFinal(): FinalContent | undefined {
    return this.messages[this.messages.length - 1]?.final;
  }

  callsOf(kind: RecordedCall['kind']): RecordedCall[] {
    return this.calls.filter((c) => c.kind === kind);
  }

  private async update(message: RecordedMessage, text: string): Promise<void> {
    const failure = this.takeFailure('update');
    this.calls.push({
      kind: 'update',
      at: this.clock.now(),
      message: message.index,
      text,
      failed: !!failure,
    });
    message.inFlight += 1;
    message.maxInFlight = Math.max(message.maxInFlight, message.inFlight);
    try {
      await this.delay();
      if (failure) throw failure;
      message.texts.push(text);
    } finally {
      message.inFlight -= 1;
    }
  }

  private async finish(message: RecordedMessage, content: FinalContent): Promise<void> {
    const failure = this.takeFailure('finish');
    this.calls.push({
      kind: 'finish',
      at: this.clock.now(),
      message: message.index,
      content,
      failed: !!failure,
    });
    if (failure) throw failure;
    message.finishCount += 1;
    message.final = content;
  }

  private takeFailure(kind: CallKind): Error | undefined {
    const i = this.failures.findIndex((f) => f.kind === kind);
    const failure = this.failures[i];
    if (!failure) return undefined;
    if (failure.skip > 0) {
      failure.skip -= 1;
      return undefined;
    }
    return this.failures.splice(i, 1)[0]!.error;
  }

  private delay(): Promise<void> {
    if (this.callDelayMs <= 0) return Promise.resolve();
    return new Promise((resolve) => this.clock.setTimer(resolve, this.callDelayMs));
  }
}
