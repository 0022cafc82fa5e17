// A minimal in-memory StateStore for engine tests: maps, and per-thread FIFO locks as promise
// chains (the real stores are tested in test/state).
import { Keyv } from 'keyv';
import { KeyvFeedbackIndex, KeyvFeedbackStore } from '../../../src/state/feedback.js';
import { LocalRateBudget } from '../../../src/state/rate-budget.js';
import type {
  AssistantSetting,
  LinkedThread,
  SessionRef,
  SourceRecord,
  StateStore,
  ThreadContextSetting,
  ThreadLocks,
  ViewingContext,
} from '../../../src/state/types.js';

export class ChainLocks implements ThreadLocks {
  private readonly tails = new Map<string, Promise<unknown>>();
  running = 0;
  maxRunning = 0;

  run<T>(threadKey: string, job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const previous = this.tails.get(threadKey) ?? Promise.resolve();
    const result = previous.then(async () => {
      this.running += 1;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      try {
        return await job(new AbortController().signal);
      } finally {
        this.running -= 1;
      }
    });
    this.tails.set(
      threadKey,
      result.catch(() => {}),
    );
    return result;
  }
}

export function memoryState() {
  const sessions = new Map<string, SessionRef>();
  const bindings = new Map<string, string>();
  const sources = new Map<string, SourceRecord>();
  const replyLinks = new Map<string, LinkedThread>();
  const threadContext = new Map<string, ThreadContextSetting>();
  const viewingContexts = new Map<string, ViewingContext>();
  const assistantSettings = new Map<string, AssistantSetting>();
  const installations = new Map<string, string>();
  const locks = new ChainLocks();
  const state: StateStore = {
    sessions: {
      get: async (k) => sessions.get(k),
      set: async (k, v) => void sessions.set(k, v),
      reset: async (k) => {
        const ref = sessions.get(k);
        if (ref) sessions.set(k, { ...ref, sessionUuid: '', resetAt: new Date(0).toISOString() });
      },
      delete: async (k) => void sessions.delete(k),
    },
    bindings: {
      get: async (k) => bindings.get(k),
      set: async (k, v) => void bindings.set(k, v),
      delete: async (k) => void bindings.delete(k),
    },
    sources: {
      add: async (r) => void sources.set(r.uuid, r),
      get: async (uuid) => sources.get(uuid),
      list: async (bot) => [...sources.values()].filter((r) => r.chatbotUuid === bot),
      update: async (uuid, patch) => {
        const r = sources.get(uuid);
        if (r) sources.set(uuid, { ...r, ...patch });
      },
    },
    dedup: { claim: async () => true },
    rateBudget: new LocalRateBudget(),
    locks,
    replyLinks: {
      get: async (k) => replyLinks.get(k),
      set: async (k, v) => void replyLinks.set(k, v),
    },
    threadContext: {
      get: async (k) => threadContext.get(k),
      set: async (k, v) => void threadContext.set(k, v),
    },
    viewingContexts: {
      get: async (k) => viewingContexts.get(k),
      set: async (k, v) => void viewingContexts.set(k, v),
    },
    assistantSettings: {
      get: async (k) => assistantSettings.get(k),
      set: async (k, v) => void assistantSettings.set(k, v),
      delete: async (k) => void assistantSettings.delete(k),
    },
    installations: {
      get: async (k) => installations.get(k),
      set: async (k, v) => void installations.set(k, v),
      delete: async (k) => void installations.delete(k),
    },
    feedback: new KeyvFeedbackStore(new Keyv(), new Keyv(), new KeyvFeedbackIndex(new Keyv())),
    close: async () => {},
  };
  return { state, sessions, bindings, sources, locks, threadContext };
}
