// Durable intake on the Slack adapter: an event is acknowledged (HTTP 200) only once it is kept;
// while the store cannot keep it, Slack gets a 500 and delivers it again; a kept event leaves
// the queue when its answer is final; an event a dead process kept is answered here once its
// lease ran out (its half-written stream closed with a notice).
import { afterEach, describe, expect, it } from 'vitest';
import { openState, type State } from '../../src/state/index.js';
import { LocalIntakeStore } from '../../src/state/intake-local.js';
import { withFailingIntake } from './failing-intake.js';
import { BOT_USER, TEAM } from './fake-slack.js';
import { ALICE, Harness, mention, nextTs } from './harness.js';
import { RecordingConversation } from './recording.js';

let h: Harness | undefined;
let state: State | undefined;
afterEach(async () => {
  await h?.close();
  await state?.close();
  h = undefined;
});

describe('Slack durable intake', () => {
  it('answers 500 while the event cannot be kept, and answers it once when it can', async () => {
    state = await openState('memory://');
    const control = { down: true };
    const conversation = new RecordingConversation();
    h = await Harness.start({ conversation, state: withFailingIntake(state, control) });
    const event = mention('are you there?');
    const first = await h.event(event);
    expect(first.status).toBe(500);
    await h.adapter.idle();
    expect(conversation.handled).toHaveLength(0);
    control.down = false;
    const retry = await h.event(event, { eventId: first.eventId, retryNum: 1 });
    expect(retry.status).toBe(200);
    // A later retry of the same event is a duplicate: acknowledged, not answered again.
    expect((await h.event(event, { eventId: first.eventId, retryNum: 2 })).status).toBe(200);
    await h.adapter.idle();
    expect(conversation.handled.map((e) => e.message.text)).toEqual(['are you there?']);
    // Final: the event left the queue.
    expect(state.intake!.queue('slack').held).toBe(0);
  });

  it('answers an event a dead process kept, closing the stream it left open', async () => {
    state = await openState('memory://', { intakeLeaseMs: 50 });
    const conversation = new RecordingConversation();
    h = await Harness.start({ conversation, state });
    // A process that died mid-answer: it kept the event and opened a stream, then went silent.
    const ts = nextTs();
    const open = (await h.fake.workspace.startStream({
      channel: 'C1',
      thread_ts: ts,
      markdown_text: 'The first wor',
      recipient_user_id: ALICE,
      recipient_team_id: TEAM,
    })) as unknown as { ts: string };
    const db = (
      state.intake as unknown as { db: ConstructorParameters<typeof LocalIntakeStore>[0] }
    ).db;
    const dead = new LocalIntakeStore(
      db,
      { leaseMs: 50, keyTtlMs: 60_000, now: Date.now },
      'chatbridge',
      'dead',
    );
    const kept = await dead.queue('slack').keep(
      `slack:message:${TEAM}:C1:${ts}`,
      JSON.stringify({
        event: { type: 'app_mention', user: ALICE, channel: 'C1', text: `<@${BOT_USER}> hi`, ts },
        envelope: { team_id: TEAM, event_id: 'EvDead' },
      }),
    );
    await dead.queue('slack').note(kept!.id, JSON.stringify({ opened: [open.ts] }));
    dead.close();
    const { message, target } = await conversation.next();
    expect(message.text).toBe('hi');
    // The engine is told what the dead process recorded, and closes it through the target.
    const { job } = conversation.handled[0]!;
    expect(job?.previous).toEqual({ opened: [open.ts] });
    await target.closeInterrupted!(job!.previous!.opened!, 'This answer was interrupted.');
    await h.adapter.idle();
    const orphan = h.fake.workspace.message(open.ts)!;
    expect(orphan.streaming).toBe(false);
    expect(orphan.markdown).toContain('This answer was interrupted');
    expect(state.intake!.queue('slack').held).toBe(0);
  });

  it('closes a message that no longer streams by replacing its text with the notice', async () => {
    state = await openState('memory://');
    const conversation = new RecordingConversation();
    h = await Harness.start({ conversation, state });
    await h.event(mention('hi'));
    const { target } = await conversation.next();
    await h.adapter.idle();
    const posted = (await h.fake.workspace.postMessage({
      channel: 'C1',
      thread_ts: nextTs(),
      markdown_text: 'Half an ans',
    })) as unknown as { ts: string };
    await target.closeInterrupted!([posted.ts], 'This answer was interrupted.');
    expect(h.fake.workspace.message(posted.ts)?.markdown).toBe('This answer was interrupted.');
    expect(h.fake.callsOf('chat.stopStream').at(-1)?.reply).toMatchObject({
      ok: false,
      error: 'message_not_in_streaming_state',
    });
  });
});
