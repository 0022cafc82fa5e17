// Thread context end to end on Slack: mentioned for the first time in a thread people started,
// the bot sends the thread's earlier messages (conversations.replies) with the question to the
// local service, which answers from them; later messages go alone, and `thread-context off`
// turns it off for the workspace.
import { afterEach, describe, expect, it } from 'vitest';
import { compareTs } from '../../adapters/slack/thread-history.js';
import { BOT_USER } from './fake-slack.js';
import { startChain, storedQueries, type Chain, type ScriptedAnswer } from './e2e-setup.js';
import { ALICE, BOSS, mention, message } from './harness.js';

let chain: Chain | undefined;
afterEach(async () => {
  await chain?.close();
  chain = undefined;
});

const ANA = 'UANA';
const BEN = 'UBEN';

/** A stand-in for a model: it can only know the decision from the thread's earlier messages. */
function decisionReader(query: string): ScriptedAnswer | undefined {
  if (!query.endsWith('what did we decide?')) return undefined;
  const agreed = /^Ben: Agreed, (\w+) it is\.$/m.exec(query);
  return { pieces: [agreed ? `You decided on ${agreed[1]}.` : 'I do not know what you decided.'] };
}

async function begin(): Promise<Chain> {
  chain = await startChain();
  const ws = chain.harness.fake.workspace;
  ws.users.set(ANA, { id: ANA, name: 'ana', profile: { display_name: 'Ana' } });
  ws.users.set(BEN, { id: BEN, name: 'ben', profile: { display_name: 'Ben' } });
  chain.answerFor = decisionReader;
  return chain;
}

/** A thread the bot opened with a question, where Ana and Ben then agreed on Lisbon. */
function offsiteThread(c: Chain): string {
  const ws = c.harness.fake.workspace;
  const root = ws.postMessage({ channel: 'C1', markdown_text: 'Where should the offsite be?' });
  if (!root.ok) throw new Error(root.error);
  const rootTs = String(root.ts);
  ws.userMessage({
    channel: 'C1',
    user: ANA,
    text: 'We should pick Lisbon for the offsite.',
    threadTs: rootTs,
  });
  ws.userMessage({ channel: 'C1', user: BEN, text: 'Agreed, Lisbon it is.', threadTs: rootTs });
  return rootTs;
}

/** Alice mentions the bot in the thread (kept by the fake, then delivered as Slack would). */
async function ask(c: Chain, thread: string, text: string, withMention = true): Promise<void> {
  const raw = withMention ? `<@${BOT_USER}> ${text}` : text;
  const said = c.harness.fake.workspace.userMessage({
    channel: 'C1',
    user: ALICE,
    text: raw,
    threadTs: thread,
  });
  const fields = { ts: said.ts, thread_ts: thread };
  await c.harness.event(withMention ? mention(text, fields) : message(text, fields));
  await c.harness.adapter.idle();
}

function botTexts(c: Chain, thread: string): string[] {
  const ws = c.harness.fake.workspace;
  return ws
    .thread('C1', thread)
    .filter((m) => m.user === undefined)
    .map((m) => ws.visibleText(m.ts));
}

const WITH_CONTEXT = [
  'Earlier messages in this thread (oldest first):',
  '(assistant): Where should the offsite be?',
  'Ana: We should pick Lisbon for the offsite.',
  'Ben: Agreed, Lisbon it is.',
  '',
  'Question: what did we decide?',
].join('\n');

describe('Slack thread context', () => {
  it('answers a question about the thread from its earlier messages, once per session', async () => {
    const c = await begin();
    const thread = offsiteThread(c);
    await ask(c, thread, 'what did we decide?');
    expect(await storedQueries(c, 'C1', thread)).toEqual([WITH_CONTEXT]);
    expect(botTexts(c, thread)).toEqual(['You decided on Lisbon.']);
    const [read] = c.harness.fake.callsOf('conversations.replies');
    expect(read?.args).toMatchObject({ channel: 'C1', ts: thread, inclusive: 'false' });

    // A follow-up without a mention: the service keeps the conversation, no context is read.
    await ask(c, thread, 'and who books the flights?', false);
    expect(await storedQueries(c, 'C1', thread)).toEqual([
      WITH_CONTEXT,
      'and who books the flights?',
    ]);
    expect(c.harness.fake.callsOf('conversations.replies')).toHaveLength(1);
  });

  it('sends the question alone once an admin turned thread context off', async () => {
    const c = await begin();
    expect(await c.harness.command('thread-context off', BOSS)).toBe(200);
    await c.harness.fake.waitFor('response_url');
    const thread = offsiteThread(c);
    await ask(c, thread, 'what did we decide?');
    expect(await storedQueries(c, 'C1', thread)).toEqual(['what did we decide?']);
    expect(botTexts(c, thread).at(-1)).toBe('I do not know what you decided.');
    expect(c.harness.fake.callsOf('conversations.replies')).toHaveLength(0);

    // And on again, with a bound of one message: only the newest goes along.
    expect(await c.harness.command('thread-context on --messages 1', BOSS)).toBe(200);
    await c.harness.fake.waitForCall(() => c.harness.fake.callsOf('response_url').length > 1);
    const next = offsiteThread(c);
    await ask(c, next, 'what did we decide?');
    expect(await storedQueries(c, 'C1', next)).toEqual([
      WITH_CONTEXT.replace(/\(assistant\).*\n/, '').replace(/Ana: .*\n/, ''),
    ]);
    expect(botTexts(c, next).at(-1)).toBe('You decided on Lisbon.');
  });

  it('still answers the question alone when the thread cannot be read', async () => {
    const c = await begin();
    c.harness.fake.failNext('conversations.replies', 1, 500);
    const thread = offsiteThread(c);
    await ask(c, thread, 'what did we decide?');
    expect(c.harness.fake.callsOf('conversations.replies').map((call) => call.status)).toEqual([
      500,
    ]);
    expect(await storedQueries(c, 'C1', thread)).toEqual(['what did we decide?']);
    expect(botTexts(c, thread).at(-1)).toBe('I do not know what you decided.');
  });

  it('reads a long thread in pages and keeps the newest messages', async () => {
    const c = await begin();
    const ws = c.harness.fake.workspace;
    const thread = offsiteThread(c);
    for (let i = 1; i <= 230; i += 1)
      ws.userMessage({ channel: 'C1', user: ANA, text: `note ${i}`, threadTs: thread });
    ws.userMessage({ channel: 'C1', user: BEN, text: 'Agreed, Porto it is.', threadTs: thread });
    await ask(c, thread, 'what did we decide?');
    const [query] = await storedQueries(c, 'C1', thread);
    expect(c.harness.fake.callsOf('conversations.replies')).toHaveLength(2);
    const lines = query!.split('\n');
    expect(lines.slice(1, -2)).toEqual([
      ...Array.from({ length: 19 }, (_, i) => `Ana: note ${212 + i}`),
      'Ben: Agreed, Porto it is.',
    ]);
    expect(botTexts(c, thread).at(-1)).toBe('You decided on Porto.');
  });
});

describe('Slack timestamps', () => {
  it('orders "seconds.micros" by time, whatever their lengths', () => {
    expect(compareTs('999999999.000001', '1000000000.000000')).toBeLessThan(0);
    expect(compareTs('1700000000.000010', '1700000000.000009')).toBeGreaterThan(0);
    expect(compareTs('1700000000.5', '1700000000.400000')).toBeGreaterThan(0);
    expect(compareTs('1700000000.000001', '1700000000.000001')).toBe(0);
  });
});
