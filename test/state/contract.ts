// One contract every state store must meet (memory, SQLite, Redis).
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { EncryptedInstallations, type State, type StateOptions } from '../../src/state/index.js';

export interface StoreFactory {
  /** Opens a store; the same factory reopens the same data when `persistent`. */
  open(options?: StateOptions): Promise<State>;
  persistent: boolean;
}

let counter = 0;
/** A key no other test has used (stores may be shared between tests). */
export const unique = (label: string) => `${label}-${process.pid}-${++counter}-${Date.now()}`;

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Fails instead of hanging when an awaited event never comes. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    }),
  ]);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function stateContract(name: string, factory: StoreFactory): void {
  describe(`state contract: ${name}`, () => {
    const opened: State[] = [];
    const open = async (options?: StateOptions) => {
      const state = await factory.open(options);
      opened.push(state);
      return state;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((state) => state.close()));
    });

    it('maps threads to sessions: set, get, replace, delete', async () => {
      const state = await open();
      const thread = unique('slack:T1:C1');
      expect(await state.sessions.get(thread)).toBeUndefined();
      const ref = { sessionUuid: 's-1', chatbotUuid: 'c-1', createdAt: '2025-01-01T00:00:00Z' };
      await state.sessions.set(thread, ref);
      expect(await state.sessions.get(thread)).toEqual(ref);
      await state.sessions.set(thread, { ...ref, sessionUuid: 's-2' });
      expect((await state.sessions.get(thread))?.sessionUuid).toBe('s-2');
      await state.sessions.delete(thread);
      expect(await state.sessions.get(thread)).toBeUndefined();
      await expect(state.sessions.set('', ref)).rejects.toThrow(/threadKey/);
    });

    it('reset keeps the thread known without a session; set gives it a new one', async () => {
      let now = Date.parse('2025-03-04T05:06:07Z');
      const state = await open({ now: () => now });
      const thread = unique('slack:T1:C1');
      const ref = { sessionUuid: 's-1', chatbotUuid: 'c-1', createdAt: '2025-01-01T00:00:00Z' };
      await state.sessions.set(thread, ref);
      await state.sessions.reset(thread);
      expect(await state.sessions.get(thread)).toEqual({
        ...ref,
        sessionUuid: '',
        resetAt: '2025-03-04T05:06:07.000Z',
      });
      now += 1_000;
      await state.sessions.reset(thread);
      expect((await state.sessions.get(thread))?.resetAt).toBe('2025-03-04T05:06:08.000Z');
      const next = { sessionUuid: 's-2', chatbotUuid: 'c-1', createdAt: '2025-03-05T00:00:00Z' };
      await state.sessions.set(thread, next);
      expect(await state.sessions.get(thread)).toEqual(next);
      // An unknown thread does not become known by being reset.
      const unknown = unique('slack:T1:C2');
      await state.sessions.reset(unknown);
      expect(await state.sessions.get(unknown)).toBeUndefined();
      await expect(state.sessions.reset('')).rejects.toThrow(/threadKey/);
    });

    it('binds places to chatbots', async () => {
      const state = await open();
      const place = unique('discord:G1');
      await state.bindings.set(place, 'bot-a');
      await state.bindings.set(`${place}:C9`, 'bot-b');
      expect(await state.bindings.get(place)).toBe('bot-a');
      expect(await state.bindings.get(`${place}:C9`)).toBe('bot-b');
      await state.bindings.delete(place);
      expect(await state.bindings.get(place)).toBeUndefined();
      await expect(state.bindings.set(place, '')).rejects.toThrow(/chatbotUuid/);
    });

    it('registers sources in order per chatbot, updates them, never lists one twice', async () => {
      const state = await open();
      const bot = unique('bot');
      const other = unique('bot');
      const at = '2025-01-01T00:00:00Z';
      for (const n of [3, 1, 2]) {
        await state.sources.add({
          uuid: `${bot}-s${n}`,
          chatbotUuid: bot,
          title: `T${n}`,
          type: 'url',
          createdAt: at,
        });
      }
      await state.sources.add({
        uuid: `${other}-x`,
        chatbotUuid: other,
        title: 'X',
        type: 'qa',
        createdAt: at,
      });
      await state.sources.add({
        uuid: `${bot}-s1`,
        chatbotUuid: bot,
        title: 'T1 again',
        type: 'url',
        createdAt: at,
      });
      await state.sources.update(`${bot}-s2`, { title: 'Renamed', link: 'https://example.org/2' });
      const listed = await state.sources.list(bot);
      expect(listed.map((s) => s.uuid)).toEqual([`${bot}-s3`, `${bot}-s1`, `${bot}-s2`]);
      expect(listed.map((s) => s.title)).toEqual(['T3', 'T1 again', 'Renamed']);
      expect((await state.sources.get(`${bot}-s2`))?.link).toBe('https://example.org/2');
      expect(await state.sources.list(other)).toHaveLength(1);
      expect(await state.sources.list(unique('none'))).toEqual([]);
      await expect(state.sources.update(unique('missing'), { title: 'x' })).rejects.toThrow(
        /not in the registry/,
      );
      await expect(
        state.sources.add({ uuid: 'u', chatbotUuid: bot, title: '', type: 'url', createdAt: at }),
      ).rejects.toThrow(/title/);
    });

    it('moves a source re-added under another chatbot', async () => {
      const state = await open();
      const [a, b, uuid] = [unique('bot'), unique('bot'), unique('src')];
      const at = '2025-01-01T00:00:00Z';
      await state.sources.add({ uuid, chatbotUuid: a, title: 'S', type: 'url', createdAt: at });
      await state.sources.add({ uuid, chatbotUuid: b, title: 'S', type: 'url', createdAt: at });
      expect(await state.sources.list(a)).toEqual([]);
      expect((await state.sources.list(b)).map((s) => s.uuid)).toEqual([uuid]);
    });

    it('dedup: the first claim wins, later ones lose, even when concurrent', async () => {
      const state = await open();
      const key = unique('evt');
      expect(await state.dedup.claim(key, 60_000)).toBe(true);
      expect(await state.dedup.claim(key, 60_000)).toBe(false);
      const racing = unique('evt');
      const results = await Promise.all(
        Array.from({ length: 50 }, () => state.dedup.claim(racing, 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      await expect(state.dedup.claim(unique('evt'), 0)).rejects.toThrow(/ttlMs/);
    });

    it('links messages to conversations: set, get, replace; names bad input', async () => {
      const state = await open();
      const message = unique('discord:answer');
      const thread = { platform: 'discord', workspace: 'G1', channel: 'C1', thread: 'M1' };
      expect(await state.replyLinks.get(message)).toBeUndefined();
      await state.replyLinks.set(message, thread);
      expect(await state.replyLinks.get(message)).toEqual(thread);
      await state.replyLinks.set(message, { ...thread, thread: 'M2' });
      expect(await state.replyLinks.get(message)).toEqual({ ...thread, thread: 'M2' });
      // Only the conversation is kept, whatever else the caller's object carries.
      const other = unique('discord:answer');
      await state.replyLinks.set(other, { ...thread, extra: 'x' } as typeof thread);
      expect(await state.replyLinks.get(other)).toEqual(thread);
      await expect(state.replyLinks.get('')).rejects.toThrow(/messageKey/);
      await expect(state.replyLinks.set('', thread)).rejects.toThrow(/messageKey/);
      await expect(state.replyLinks.set(message, { ...thread, channel: '' })).rejects.toThrow(
        /thread\.channel/,
      );
    });

    it('keeps thread-context settings per workspace; names bad input', async () => {
      const state = await open();
      const workspace = unique('slack:T1');
      expect(await state.threadContext.get(workspace)).toBeUndefined();
      await state.threadContext.set(workspace, { enabled: false });
      expect(await state.threadContext.get(workspace)).toEqual({ enabled: false });
      const bounded = { enabled: true, maxMessages: 5, maxChars: 900 };
      await state.threadContext.set(workspace, bounded);
      expect(await state.threadContext.get(workspace)).toEqual(bounded);
      expect(await state.threadContext.get(unique('slack:T2'))).toBeUndefined();
      await expect(state.threadContext.set('', bounded)).rejects.toThrow(/workspace/);
      await expect(
        state.threadContext.set(workspace, { enabled: true, maxMessages: 0 }),
      ).rejects.toThrow(/maxMessages/);
      await expect(
        state.threadContext.set(workspace, { enabled: true, maxChars: 1.5 }),
      ).rejects.toThrow(/maxChars/);
      expect(await state.threadContext.get(workspace)).toEqual(bounded);
    });

    it("keeps assistant threads' viewing contexts and assistant settings; names bad input", async () => {
      const state = await open();
      const thread = unique('slack:T1:D1:1.000');
      expect(await state.viewingContexts.get(thread)).toBeUndefined();
      await state.viewingContexts.set(thread, { channel: 'C1', workspace: 'T1' });
      expect(await state.viewingContexts.get(thread)).toEqual({ channel: 'C1', workspace: 'T1' });
      // A context with no channel still marks the thread as an assistant thread.
      await state.viewingContexts.set(thread, {});
      expect(await state.viewingContexts.get(thread)).toEqual({});
      await expect(state.viewingContexts.set(thread, { channel: '' })).rejects.toThrow(/channel/);

      const place = unique('slack:T1');
      expect(await state.assistantSettings.get(place)).toBeUndefined();
      await state.assistantSettings.set(place, { greeting: 'Hi', prompts: ['a', 'b'] });
      expect(await state.assistantSettings.get(place)).toEqual({
        greeting: 'Hi',
        prompts: ['a', 'b'],
      });
      await state.assistantSettings.set(place, { prompts: [] });
      expect(await state.assistantSettings.get(place)).toEqual({ prompts: [] });
      await expect(state.assistantSettings.set(place, { prompts: ['ok', ''] })).rejects.toThrow(
        /prompts\[1\]/,
      );
      await expect(state.assistantSettings.set(place, { greeting: '' })).rejects.toThrow(
        /greeting/,
      );
      await state.assistantSettings.set(place, {});
      expect(await state.assistantSettings.get(place)).toBeUndefined();
      await state.assistantSettings.set(place, { greeting: 'Hello' });
      await state.assistantSettings.delete(place);
      expect(await state.assistantSettings.get(place)).toBeUndefined();
    });

    it('keeps installations sealed and survives a reopen where the store persists', async () => {
      const state = await open();
      const key = randomBytes(32);
      const records = new EncryptedInstallations(state.installations, key);
      const name = `slack:team:${unique('T')}`;
      await records.save(name, { bot: { token: 'tok-abc-123' } });
      expect(await state.installations.get(name)).toMatch(/^v1:/);
      expect(await state.installations.get(name)).not.toContain('tok-abc-123');
      const again = factory.persistent ? await open() : state;
      const reopened = new EncryptedInstallations(again.installations, key);
      expect((await reopened.fetch(name))?.installation).toEqual({ bot: { token: 'tok-abc-123' } });
      await reopened.delete(name);
      expect(await reopened.fetch(name)).toBeUndefined();
    });

    it('feedback: one row per person and answer, changed in place, listed newest first', async () => {
      let now = Date.parse('2025-05-01T10:00:00Z');
      const state = await open({ now: () => now });
      const workspace = unique('T');
      const scope = `slack:${workspace}`;
      const answer = {
        messageUuid: unique('m'),
        platform: 'slack',
        workspace,
        channel: 'C1',
        thread: '1.0',
        chatbotUuid: 'bot-a',
        sessionUuid: 's-1',
        question: 'How long do refunds take?',
        answerExcerpt: 'a'.repeat(600),
        answeredAt: '2025-05-01T09:59:00.000Z',
      };
      // Only the known fields are kept, whatever a caller passes along.
      await state.feedback.rememberAnswer({ ...answer, token: 'xoxb-secret' } as typeof answer);
      const remembered = (await state.feedback.answer('slack', workspace, answer.messageUuid))!;
      expect(remembered.answerExcerpt).toHaveLength(500);
      expect(JSON.stringify(remembered)).not.toContain('secret');
      expect(await state.feedback.answer('discord', workspace, answer.messageUuid)).toBeUndefined();

      const first = await state.feedback.vote(remembered, 'U1', 'down');
      expect(first.previous).toBeUndefined();
      expect((await state.feedback.setReason(first.record.id, ' wrong period '))?.reason).toBe(
        'wrong period',
      );
      now += 60_000;
      const again = await state.feedback.vote(remembered, 'U1', 'down');
      expect(again).toMatchObject({ previous: 'down', record: { reason: 'wrong period' } });
      now += 60_000;
      const up = await state.feedback.vote(remembered, 'U1', 'up');
      expect(up.previous).toBe('down');
      expect(up.record).toMatchObject({
        id: first.record.id,
        vote: 'up',
        createdAt: '2025-05-01T10:00:00.000Z',
        updatedAt: '2025-05-01T10:02:00.000Z',
      });
      expect(up.record.reason).toBeUndefined();
      // A reason belongs to a 👎 only.
      expect(await state.feedback.setReason(first.record.id, 'late')).toBeUndefined();

      now += 60_000;
      const other = { ...remembered, messageUuid: unique('m'), chatbotUuid: 'bot-b' };
      const second = await state.feedback.vote(other, 'U2', 'down');
      expect(second.record.id).not.toBe(first.record.id);

      const ids = async (filter: Parameters<typeof state.feedback.list>[0]) =>
        (await state.feedback.list({ workspace: scope, ...filter })).map((row) => row.userId);
      expect(await ids({})).toEqual(['U2', 'U1']);
      expect(await ids({ vote: 'down' })).toEqual(['U2']);
      expect(await ids({ chatbotUuid: 'bot-a' })).toEqual(['U1']);
      expect(await ids({ since: now })).toEqual(['U2']);
      expect(await state.feedback.list({ workspace: 'slack:nowhere' })).toEqual([]);
      expect(await state.feedback.get(second.record.id)).toEqual(second.record);
      // Changed two days later: listed once, at its new time.
      now += 2 * 86_400_000;
      await state.feedback.vote(remembered, 'U1', 'down');
      expect(await ids({})).toEqual(['U1', 'U2']);
      expect(await ids({ since: now })).toEqual(['U1']);
      await expect(state.feedback.vote(remembered, 'U1', 'meh' as unknown as 'up')).rejects.toThrow(
        /vote/,
      );
      await expect(state.feedback.vote(remembered, '', 'up')).rejects.toThrow(/userId/);
    });

    it('feedback: concurrent votes of many people all reach the index', async () => {
      const a = await open();
      // Redis replicas share one store: half the votes go through a second connection.
      const b = name === 'redis' ? await open() : a;
      const workspace = unique('T');
      const answer = {
        messageUuid: unique('m'),
        platform: 'discord',
        workspace,
        channel: 'C1',
        thread: 'T1',
        chatbotUuid: 'bot-a',
        sessionUuid: 's-1',
        question: 'q',
        answerExcerpt: 'a',
        answeredAt: '2025-05-01T09:59:00.000Z',
      };
      await a.feedback.rememberAnswer(answer);
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          (i % 2 ? b : a).feedback.vote(answer, `U${i}`, i % 3 ? 'up' : 'down'),
        ),
      );
      const rows = await a.feedback.list({ workspace: `discord:${workspace}` });
      expect(rows).toHaveLength(30);
      expect(new Set(rows.map((row) => row.userId)).size).toBe(30);
    });

    it('reply links expire replyLinkTtlMs after they were set, by the store clock', async () => {
      let now = Date.parse('2025-03-04T05:06:07Z');
      const state = await open({ now: () => now, replyLinkTtlMs: 60_000 });
      const message = unique('discord:answer');
      const thread = { platform: 'discord', workspace: 'G1', channel: 'C1', thread: 'M1' };
      await state.replyLinks.set(message, thread);
      now += 59_999;
      expect(await state.replyLinks.get(message)).toEqual(thread);
      now += 1;
      expect(await state.replyLinks.get(message)).toBeUndefined();
      // Setting it again starts a new term.
      await state.replyLinks.set(message, thread);
      now += 59_999;
      expect(await state.replyLinks.get(message)).toEqual(thread);
    });

    it('reply links last 30 days unless told otherwise', async () => {
      let now = Date.parse('2025-03-04T05:06:07Z');
      const state = await open({ now: () => now });
      const message = unique('discord:answer');
      const thread = { platform: 'discord', workspace: 'G1', channel: 'C1', thread: 'M1' };
      await state.replyLinks.set(message, thread);
      now += 30 * 24 * 3_600_000 - 1;
      expect(await state.replyLinks.get(message)).toEqual(thread);
      now += 1;
      expect(await state.replyLinks.get(message)).toBeUndefined();
      await expect(open({ replyLinkTtlMs: 0 })).rejects.toThrow(/replyLinkTtlMs/);
    });

    it('locks: 20 quick jobs on one thread run one at a time in call order', async () => {
      const state = await open();
      const thread = unique('thread');
      const started: number[] = [];
      let active = 0;
      let maxActive = 0;
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          state.locks.run(thread, async () => {
            active += 1;
            maxActive = Math.max(maxActive, active);
            started.push(i);
            await pause(Math.floor(Math.random() * 8));
            active -= 1;
            return i * 10;
          }),
        ),
      );
      expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(maxActive).toBe(1);
      expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
    });

    it('locks: a failing job rejects its own run() and the thread carries on', async () => {
      const state = await open();
      const thread = unique('thread');
      const order: string[] = [];
      const first = state.locks.run(thread, async () => {
        order.push('first');
        throw new Error('boom');
      });
      const second = state.locks.run(thread, async () => {
        order.push('second');
        return 'ok';
      });
      await expect(first).rejects.toThrow('boom');
      await expect(second).resolves.toBe('ok');
      expect(order).toEqual(['first', 'second']);
    });

    it('locks: jobs of different threads overlap', async () => {
      const state = await open();
      const aStarted = deferred();
      const bStarted = deferred();
      // Each job waits until the other has started: only possible if they run in parallel.
      const a = state.locks.run(unique('thread'), async () => {
        aStarted.resolve();
        await bStarted.promise;
      });
      const b = state.locks.run(unique('thread'), async () => {
        bStarted.resolve();
        await aStarted.promise;
      });
      await within(Promise.all([a, b]), 5_000, 'two threads to overlap');
    });

    it('locks: at most maxConcurrent jobs run at once, the rest wait their turn', async () => {
      const state = await open({ maxConcurrent: 3 });
      let active = 0;
      let maxActive = 0;
      const gate = deferred();
      const reachedBound = deferred();
      const jobs = Array.from({ length: 10 }, () =>
        state.locks.run(unique('thread'), async () => {
          active += 1;
          maxActive = Math.max(maxActive, active);
          if (active === 3) reachedBound.resolve();
          await gate.promise;
          await pause(2);
          active -= 1;
        }),
      );
      await within(reachedBound.promise, 5_000, 'three jobs running');
      // Let anything that would break the bound get its chance to start.
      await pause(30);
      expect(active).toBe(3);
      gate.resolve();
      await Promise.all(jobs);
      expect(maxActive).toBe(3);
    });

    it.runIf(factory.persistent)(
      'keeps sessions, bindings, sources, dedup claims and reply links across a restart',
      async () => {
        const first = await factory.open();
        const thread = unique('slack:T:C:1');
        const bot = unique('bot');
        const ref = { sessionUuid: 'sess', chatbotUuid: bot, createdAt: '2025-01-01T00:00:00Z' };
        await first.sessions.set(thread, ref);
        const resetThread = unique('slack:T:C:2');
        await first.sessions.set(resetThread, ref);
        await first.sessions.reset(resetThread);
        await first.bindings.set(`place-${bot}`, bot);
        await first.sources.add({
          uuid: `${bot}-1`,
          chatbotUuid: bot,
          title: 'Doc',
          type: 'file',
          createdAt: ref.createdAt,
        });
        const claimed = unique('evt');
        expect(await first.dedup.claim(claimed, 60_000)).toBe(true);
        const answer = unique('discord:answer');
        const linked = { platform: 'discord', workspace: 'G', channel: 'C', thread: thread };
        await first.replyLinks.set(answer, linked);
        await first.close();

        const second = await open();
        expect(await second.sessions.get(thread)).toEqual(ref);
        expect(await second.sessions.get(resetThread)).toMatchObject({
          sessionUuid: '',
          chatbotUuid: bot,
          resetAt: expect.any(String),
        });
        expect(await second.bindings.get(`place-${bot}`)).toBe(bot);
        expect((await second.sources.list(bot)).map((s) => s.title)).toEqual(['Doc']);
        expect(await second.dedup.claim(claimed, 60_000)).toBe(false);
        expect(await second.replyLinks.get(answer)).toEqual(linked);
      },
    );

    it('rejects new jobs once closed', async () => {
      const state = await factory.open();
      await state.close();
      await expect(state.locks.run(unique('thread'), async () => 1)).rejects.toThrow(/closed/);
    });
  });
}
