// A replica that dies between Slack's answer to chat.startStream and recording the stream's ts:
// the stream is open in Slack and no record names it. The engine records the intent first
// (AnswerProgress.opening), so the replica taking the answer over reads the thread and stops
// the bot's orphaned stream with the notice, then delivers the stored answer once. The death is
// a test hook on the job's record (the note with the ts never lands), not a timing guess. On
// fake time: B clears its thread status at Slack's pace for statuses in a channel (about one
// a second), after the status A set.
import { afterEach, describe, expect, it } from 'vitest';
import { webApi } from '@slack/bolt';
import { createConversation } from '../../src/bridge/engine.js';
import { INTERRUPTED_TEXT } from '../../src/bridge/takeover.js';
import type { AnswerJob, AnswerProgress, IncomingMessage } from '../../src/bridge/types.js';
import { silentLogger } from '../../src/log.js';
import { WorkspaceFeatures } from '../../adapters/slack/features.js';
import { Pacer } from '../../adapters/slack/pacing.js';
import { createSlackReplyTarget } from '../../adapters/slack/reply.js';
import { interruptedCloser } from '../../adapters/slack/takeover.js';
import { createSlackApi, type SlackApi } from '../../adapters/slack/web.js';
import { FakeClient, ScriptedStream } from '../bridge/helpers/fake-client.js';
import { useFakeTime, type FakeTime } from '../fake-time.js';
import { memoryState } from '../bridge/helpers/memory-state.js';
import { BOT_TOKEN, BOT_USER, FakeSlack, TEAM } from './fake-slack.js';
import { ALICE } from './harness.js';

let fake: FakeSlack | undefined;
let time: FakeTime | undefined;
afterEach(async () => {
  time?.restore();
  time = undefined;
  await fake?.close();
  fake = undefined;
});

function slackApi(apiUrl: string): SlackApi {
  const client = new webApi.WebClient(BOT_TOKEN, {
    slackApiUrl: apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  return createSlackApi(client, new Pacer());
}

/** One replica's engine over the shared service (the fake client keeps the sessions). */
function replica(client: FakeClient) {
  const mem = memoryState();
  mem.bindings.set(`slack:${TEAM}`, 'bot-1');
  return createConversation({ client, state: mem.state, takeoverWaitMs: 5_000 });
}

function target(api: SlackApi, question: IncomingMessage) {
  const reply = createSlackReplyTarget(
    {
      workspace: TEAM,
      channel: question.channel,
      threadTs: question.thread,
      messageTs: question.messageId,
      userId: ALICE,
      userTeam: TEAM,
      isDm: false,
    },
    { api, features: new WorkspaceFeatures(), logger: silentLogger },
  );
  // As events.ts wires it for every answer.
  reply.closeInterrupted = interruptedCloser(api, {
    workspace: TEAM,
    channel: question.channel,
    threadTs: question.thread,
    questionTs: question.messageId,
    botUserId: BOT_USER,
  });
  return reply;
}

describe('Slack takeover: a replica dead between opening a stream and recording it', () => {
  it('finds the stream no record names, stops it with the notice, answers once', async () => {
    fake = await new FakeSlack().start();
    // Before the pacer is made: its clock is Date.now, faked from here on.
    time = useFakeTime();
    const api = slackApi(fake.apiUrl);
    const ask = fake.workspace.userMessage({ channel: 'C1', user: ALICE, text: 'hi' });
    // An earlier message of the bot's after the question, complete: never touched.
    const earlier = (await fake.workspace.postMessage({
      channel: 'C1',
      thread_ts: ask.ts,
      markdown_text: 'An earlier, complete message.',
    })) as unknown as { ts: string };
    const question: IncomingMessage = {
      platform: 'slack',
      workspace: TEAM,
      channel: 'C1',
      thread: ask.ts,
      messageId: ask.ts,
      userId: ALICE,
      userName: 'alice',
      text: 'hi',
    };
    const service = new FakeClient();
    const stream = new ScriptedStream();
    service.onStream = () => stream;

    // Replica A answers; the hook: its record of the opened ts never lands (it died there).
    let progress: AnswerProgress = {};
    let died!: () => void;
    const dead = new Promise<void>((resolve) => (died = resolve));
    const jobA: AnswerJob = {
      record: async (update) => {
        if (update.opened?.length) {
          died();
          await new Promise(() => {}); // never: the process is gone
        }
        progress = { ...progress, ...update };
      },
    };
    void replica(service).handle(question, target(api, question), jobA);
    stream.push('The first words of the answer');
    await time.settle(dead);
    const opened = fake.callsOf('chat.startStream');
    expect(opened).toHaveLength(1);
    const orphanTs = String((opened[0]!.reply as { ts?: string }).ts);
    expect(fake.workspace.message(orphanTs)?.streaming).toBe(true);
    // What the dead replica left: the question sent, a message being opened, no ts.
    expect(progress).toMatchObject({ query: 'hi', opening: true });
    expect(progress.opened).toBeUndefined();
    // The service finishes the answer and stores it, as it does when its reader is gone.
    stream.push(', and the rest.');
    stream.end();

    // Replica B takes the kept event over after the lease.
    const jobB: AnswerJob = { previous: progress, record: async () => {} };
    await time.settle(replica(service).handle(question, target(api, question), jobB));

    const orphan = fake.workspace.message(orphanTs)!;
    expect(orphan.streaming).toBe(false);
    expect(orphan.ended).toBe('stop');
    expect(fake.workspace.visibleText(orphanTs)).toContain('This answer was interrupted');
    expect(INTERRUPTED_TEXT).toContain('This answer was interrupted');
    // Asked once: B read the stored answer back and delivered it whole in a new stream.
    expect(service.streamCalls).toHaveLength(1);
    const streams = fake.callsOf('chat.startStream');
    expect(streams).toHaveLength(2);
    const answerTs = String((streams[1]!.reply as { ts?: string }).ts);
    expect(fake.workspace.visibleText(answerTs)).toContain(
      'The first words of the answer, and the rest.',
    );
    // Nothing of the bot's left streaming; the earlier complete message kept its words.
    const bots = fake.workspace.thread('C1', ask.ts).filter((m) => !m.user);
    expect(bots.filter((m) => m.streaming)).toEqual([]);
    expect(fake.workspace.message(earlier.ts)?.markdown).toBe('An earlier, complete message.');
  });
});
