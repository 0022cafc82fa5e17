// Wires the engine to the fake client, the in-memory state and the fake clock.
import { createConversation, type ConversationDeps } from '../../../src/bridge/engine.js';
import type { IncomingMessage, SurfaceLimits } from '../../../src/bridge/types.js';
import { FakeClock } from './fake-clock.js';
import { FakeClient, ScriptedStream } from './fake-client.js';
import { memoryState } from './memory-state.js';
import { RecordingTarget } from './recording-target.js';

export function message(text: string, over: Partial<IncomingMessage> = {}): IncomingMessage {
  return {
    platform: 'slack',
    workspace: 'T1',
    channel: 'C1',
    thread: 'th1',
    messageId: `m-${text}`,
    userId: 'U1',
    userName: 'ada',
    channelName: 'general',
    text,
    ...over,
  };
}

export function setupEngine(
  deps: Partial<ConversationDeps> = {},
  limits: Partial<SurfaceLimits> = {},
) {
  const clock = new FakeClock();
  const client = new FakeClient();
  const mem = memoryState();
  mem.bindings.set('slack:T1', 'bot-1');
  const conversation = createConversation({
    client,
    state: mem.state,
    now: clock.now,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
    ...deps,
  });
  const target = () => new RecordingTarget({ maxChars: 2000, minUpdateMs: 1000, ...limits }, clock);
  /** Streams each answer in pieces over fake time: `pieces(query)`, one every `everyMs`. */
  const streamOverTime = (pieces: (query: string) => string[], everyMs = 100) => {
    client.onStream = ({ query }) => {
      const stream = new ScriptedStream();
      const queue = pieces(query);
      const tick = () => {
        const piece = queue.shift();
        if (piece === undefined) return stream.end();
        stream.push(piece);
        clock.setTimer(tick, everyMs);
      };
      clock.setTimer(tick, everyMs);
      return stream;
    };
  };
  return { clock, client, conversation, target, streamOverTime, ...mem };
}
