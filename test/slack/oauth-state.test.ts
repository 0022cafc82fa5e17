// The OAuth state is good once: the same state and cookie sent again with a new code install
// nothing, on this replica or another one sharing the store.
import { afterEach, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import { FakeSlack } from './fake-slack.js';
import { Harness } from './harness.js';
import { oauthConfig } from './oauth-flow.js';
import { RecordingConversation, simpleAnswer } from './recording.js';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('Slack OAuth state', () => {
  it('is single-use: a second callback with the same state and cookie installs nothing', async () => {
    const fake = await new FakeSlack().start();
    const state = await openState('memory://');
    const h = await Harness.start({
      conversation: new RecordingConversation(simpleAnswer('ok')),
      slack: fake,
      state,
      oauth: oauthConfig(),
    });
    harnesses.push(h);
    const first = fake.oauth.installable('TA', { channels: ['CA1'] });
    const second = fake.oauth.installable('TB', { channels: ['CB1'] });
    const start = await fetch(`${h.base}/slack/install`, { redirect: 'manual' });
    await start.text();
    const stateParam = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
    const finish = async (code: string) => {
      const response = await fetch(
        `${h.base}/slack/oauth_redirect?${new URLSearchParams({ code, state: stateParam })}`,
        { headers: { cookie }, redirect: 'manual' },
      );
      await response.text();
      return response.status;
    };
    expect(await finish(first.code)).toBeLessThan(400);
    expect(await state.installations.get('slack:team:TA')).toBeDefined();
    expect(await finish(second.code)).toBe(400);
    expect(fake.oauth.exchanges).toHaveLength(1);
    expect(await state.installations.get('slack:team:TB')).toBeUndefined();
  });
});
