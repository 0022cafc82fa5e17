// Slack's assistant pane end to end: Bolt's Assistant → greeting and suggested prompts set by
// admins (workspace, then channel), the thread titled by its first question, the chatbot of the
// channel being viewed answering through the ordinary path, and the viewing context in the
// store (a second replica reads it).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_ASSISTANT_GREETING,
  DEFAULT_ASSISTANT_PROMPTS,
} from '../../src/bridge/assistant.js';
import { createConversation } from '../../src/bridge/index.js';
import { startChain, storedQueries, type Chain } from './e2e-setup.js';
import type { FakeCall } from './fake-slack.js';
import { TEAM } from './fake-slack.js';
import { useFakeTime, type FakeTime } from '../fake-time.js';
import { ALICE, BOSS, Harness, message, nextTs } from './harness.js';

let chain: Chain | undefined;
const extra: Harness[] = [];
// Slack lets about one message a second into a channel: on fake time, a pane thread's
// greeting, title and answers go at Slack's pace without the test waiting seconds for them.
let time: FakeTime | undefined;
afterEach(async () => {
  for (const replica of extra.splice(0)) {
    await replica.idle();
    await replica.adapter.stop();
  }
  await chain?.close();
  chain = undefined;
  time?.restore();
  time = undefined;
});

async function begin(): Promise<Chain> {
  time = useFakeTime();
  chain = await startChain({ time });
  chain.harness.fake.workspace.channels.set('C2', 'sales');
  chain.answerFor = (query) => ({ pieces: [`Answer to ${query}`] });
  return chain;
}

const DM = 'D5';

function paneEvent(
  type: 'assistant_thread_started' | 'assistant_thread_context_changed',
  thread: string,
  viewing: string | undefined,
) {
  return {
    type,
    assistant_thread: {
      user_id: ALICE,
      context: viewing === undefined ? {} : { channel_id: viewing, team_id: TEAM },
      channel_id: DM,
      thread_ts: thread,
    },
    event_ts: nextTs(),
  };
}

/** Opens a pane thread viewing `viewing`; resolves once its greeting work is done. */
async function openPane(c: Chain, viewing: string | undefined): Promise<string> {
  // Slack keeps a root message for the pane's thread (conversations.replies finds it).
  const thread = c.harness.fake.workspace.userMessage({ channel: DM, user: ALICE, text: '' }).ts;
  const { status } = await c.harness.event(paneEvent('assistant_thread_started', thread, viewing));
  expect(status).toBe(200);
  await c.harness.idle();
  return thread;
}

function greetingOf(c: Chain, thread: string): string[] {
  const ws = c.harness.fake.workspace;
  return ws.thread(DM, thread).map((m) => ws.visibleText(m.ts));
}

function promptsOf(c: Chain, thread: string): string[] | undefined {
  const call = c.harness.fake
    .callsOf('assistant.threads.setSuggestedPrompts')
    .find((x) => x.args.thread_ts === thread);
  return (call?.args.prompts as { message: string }[] | undefined)?.map((p) => p.message);
}

async function admin(c: Chain, line: string, channel = 'C1'): Promise<void> {
  expect(await c.harness.command(line, BOSS, channel)).toBe(200);
  await c.harness.idle();
}

/** A question in the pane's thread, answered through the ordinary path. */
async function ask(c: Chain, thread: string, text: string, harness = c.harness) {
  // Kept in the fake too, so the thread reads as Slack would show it (greeting first).
  const { ts } = c.harness.fake.workspace.userMessage({
    channel: DM,
    user: ALICE,
    text,
    threadTs: thread,
  });
  const event = message(text, { channel: DM, channel_type: 'im', thread_ts: thread, ts });
  await harness.event(event);
  await harness.idle();
  return event;
}

async function sessionChatbot(c: Chain, thread: string): Promise<string | undefined> {
  return (await c.harness.state.sessions.get(`slack:${TEAM}:${DM}:${thread}`))?.chatbotUuid;
}

describe('Slack assistant pane', () => {
  it('greets a new thread and suggests prompts: defaults, then the workspace, then the channel', async () => {
    const c = await begin();
    const first = await openPane(c, 'C1');
    expect(greetingOf(c, first)).toEqual([DEFAULT_ASSISTANT_GREETING]);
    expect(promptsOf(c, first)).toEqual(DEFAULT_ASSISTANT_PROMPTS);

    await admin(c, 'assistant greeting "Welcome to Acme help."');
    await admin(c, 'assistant prompts add "How do refunds work?"');
    const second = await openPane(c, 'C1');
    expect(greetingOf(c, second)).toEqual(['Welcome to Acme help.']);
    expect(promptsOf(c, second)).toEqual([...DEFAULT_ASSISTANT_PROMPTS, 'How do refunds work?']);

    // Typed in #sales with --channel: only people viewing #sales get it.
    await admin(c, 'assistant greeting "Sales desk: ask about pricing." --channel', 'C2');
    await admin(c, 'assistant prompts remove 1 --channel', 'C2');
    const sales = await openPane(c, 'C2');
    expect(greetingOf(c, sales)).toEqual(['Sales desk: ask about pricing.']);
    expect(promptsOf(c, sales)).toEqual([
      ...DEFAULT_ASSISTANT_PROMPTS.slice(1),
      'How do refunds work?',
    ]);
    const general = await openPane(c, 'C1');
    expect(greetingOf(c, general)).toEqual(['Welcome to Acme help.']);
    // Viewing no channel at all: the workspace's.
    const nowhere = await openPane(c, undefined);
    expect(greetingOf(c, nowhere)).toEqual(['Welcome to Acme help.']);

    // Every prompts call met Slack's rules (the fake refuses more than four, or empty ones).
    const calls: FakeCall[] = c.harness.fake.callsOf('assistant.threads.setSuggestedPrompts');
    expect(calls).toHaveLength(5);
    expect(calls.every((call) => call.reply?.ok === true)).toBe(true);
  });

  it('suggests nothing where an admin removed every prompt, and greets a retried start once', async () => {
    const c = await begin();
    for (let i = 0; i < DEFAULT_ASSISTANT_PROMPTS.length; i++) {
      await admin(c, 'assistant prompts remove 1');
    }
    const thread = nextTs();
    const started = await c.harness.event(paneEvent('assistant_thread_started', thread, 'C1'));
    await c.harness.event(paneEvent('assistant_thread_started', thread, 'C1'), {
      eventId: started.eventId,
      retryNum: 1,
    });
    await c.harness.idle();
    expect(greetingOf(c, thread)).toEqual([DEFAULT_ASSISTANT_GREETING]);
    expect(c.harness.fake.callsOf('assistant.threads.setSuggestedPrompts')).toHaveLength(0);
  });

  it('titles the thread with its first question, shortened, once; answers each question once', async () => {
    const c = await begin();
    const thread = await openPane(c, 'C1');
    const question =
      'How do I move my whole team from the old billing plan to the new yearly plan without losing data?';
    await ask(c, thread, question);
    await ask(c, thread, 'And what about invoices?');
    const titles = c.harness.fake.callsOf('assistant.threads.setTitle');
    expect(titles).toHaveLength(1);
    expect(titles[0]!.args).toMatchObject({ channel_id: DM, thread_ts: thread });
    const title = String(titles[0]!.args.title);
    expect(title).toBe('How do I move my whole team from the old billing plan to…');
    expect([...title].length).toBeLessThanOrEqual(60);
    expect(titles[0]!.reply?.ok).toBe(true);
    // The greeting is ours, not context for the chatbot: the questions go as they are, once.
    expect(await storedQueries(c, DM, thread)).toEqual([question, 'And what about invoices?']);
    expect(c.harness.fake.callsOf('chat.startStream')).toHaveLength(2);
  });

  it('answers with the chatbot bound to the channel viewed, following the context as it changes', async () => {
    const c = await begin();
    const sales = await c.client.createChatbot({ name: 'Sales', rate_limit: [100, 60] });
    await admin(c, `chatbot use ${sales.uuid}`, 'C2');
    const thread = await openPane(c, 'C1');
    await ask(c, thread, 'first question');
    // Nothing bound to #general: the workspace's chatbot.
    expect(await sessionChatbot(c, thread)).toBe(c.chatbotUuid);

    await c.harness.event(paneEvent('assistant_thread_context_changed', thread, 'C2'));
    await c.harness.idle();
    expect(await c.harness.state.viewingContexts.get(`slack:${TEAM}:${DM}:${thread}`)).toEqual({
      channel: 'C2',
      workspace: TEAM,
    });
    await ask(c, thread, 'second question');
    expect(await sessionChatbot(c, thread)).toBe(sales.uuid);
    const ref = await c.harness.state.sessions.get(`slack:${TEAM}:${DM}:${thread}`);
    const messages = await c.client.listMessages(ref!.sessionUuid);
    expect(messages.map((m) => m.query)).toEqual(['second question']);
    // Not titled again by the question asked of another chatbot.
    expect(c.harness.fake.callsOf('assistant.threads.setTitle')).toHaveLength(1);
  });

  it('before the first question, the prompts follow the person to a channel with other prompts', async () => {
    const c = await begin();
    await admin(c, 'assistant prompts remove 1 --channel', 'C2');
    const thread = await openPane(c, 'C1');
    const promptCalls = () =>
      c.harness.fake
        .callsOf('assistant.threads.setSuggestedPrompts')
        .filter((call) => call.args.thread_ts === thread)
        .map((call) => (call.args.prompts as { message: string }[]).map((p) => p.message));
    const move = async (viewing: string) => {
      await c.harness.event(paneEvent('assistant_thread_context_changed', thread, viewing));
      await c.harness.idle();
    };
    await move('C3'); // the same prompts as #general: nothing to change
    expect(promptCalls()).toEqual([DEFAULT_ASSISTANT_PROMPTS]);
    await move('C2');
    expect(promptCalls()).toEqual([DEFAULT_ASSISTANT_PROMPTS, DEFAULT_ASSISTANT_PROMPTS.slice(1)]);
    await ask(c, thread, 'a question');
    await move('C1'); // the conversation has begun: the prompts stay
    expect(promptCalls()).toHaveLength(2);
  });

  it("keeps the context in the store: a second replica answers with the viewed channel's chatbot", async () => {
    const c = await begin();
    const sales = await c.client.createChatbot({ name: 'Sales', rate_limit: [100, 60] });
    await c.harness.state.bindings.set(`slack:${TEAM}:C2`, sales.uuid);
    const thread = await openPane(c, 'C2');
    const replica = await Harness.start({
      conversation: createConversation({ client: c.client, state: c.harness.state }),
      client: c.client,
      state: c.harness.state,
      slack: c.harness.fake,
      ...(time ? { time } : {}),
    });
    extra.push(replica);
    await ask(c, thread, 'asked on the other replica', replica);
    expect(await sessionChatbot(c, thread)).toBe(sales.uuid);
    expect(await storedQueries(c, DM, thread)).toEqual(['asked on the other replica']);
    expect(c.harness.fake.callsOf('assistant.threads.setTitle')).toHaveLength(1);
  });

  it('answers a reply in an ordinary DM thread once, as before, untitled', async () => {
    const c = await begin();
    const root = message('hello there', { channel: 'D8', channel_type: 'im' });
    await c.harness.event(root);
    await c.harness.idle();
    await c.harness.event(
      message('a follow-up', { channel: 'D8', channel_type: 'im', thread_ts: root.ts }),
    );
    await c.harness.idle();
    expect(await storedQueries(c, 'D8', root.ts)).toHaveLength(2);
    expect(c.harness.fake.callsOf('chat.startStream')).toHaveLength(2);
    expect(c.harness.fake.callsOf('assistant.threads.setTitle')).toHaveLength(0);
  });

  it('is switched on by the manifest: the pane, its events and the scope', () => {
    const manifest = readFileSync(
      new URL('../../adapters/slack/manifest.yml', import.meta.url),
      'utf8',
    );
    expect(manifest).toMatch(/^\s+assistant_view:\n\s+assistant_description: \S/m);
    expect(manifest).toMatch(/^\s+- assistant_thread_started$/m);
    expect(manifest).toMatch(/^\s+- assistant_thread_context_changed$/m);
    expect(manifest).toMatch(/^\s+- assistant:write$/m);
    expect(manifest).toMatch(/^\s+- message\.im$/m);
  });
});
