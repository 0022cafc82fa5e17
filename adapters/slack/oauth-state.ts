// The OAuth `state` of an install: signed with SLACK_STATE_SECRET (so only we can have made
// it), good for ten minutes, and good once. Its use is claimed in the state store (Dedup: an
// atomic "first time?" that replicas on Redis share), so a state and cookie captured from one
// install cannot finish a second one with another code. Bolt's InstallProvider calls this as
// its stateStore; it still pins the state to the browser with its cookie.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { InstallURLOptions, StateStore } from '@slack/bolt';
import type { Dedup } from '../../src/state/types.js';

export const STATE_TTL_MS = 10 * 60_000;

/** @slack/oauth's code for a bad state: its callback then answers 400. */
const INVALID_STATE = 'slack_oauth_invalid_state';

class InvalidState extends Error {
  readonly code = INVALID_STATE;
}

interface StatePayload {
  id: string;
  now: string;
  installOptions: InstallURLOptions;
}

export function singleUseStateStore(secret: string, dedup: Dedup): StateStore {
  const mac = (data: string) => createHmac('sha256', secret).update(data).digest('base64url');
  return {
    async generateStateParam(installOptions, now) {
      const payload: StatePayload = {
        id: randomBytes(16).toString('base64url'),
        now: now.toISOString(),
        installOptions,
      };
      const data = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${data}.${mac(data)}`;
    },
    async verifyStateParam(now, state) {
      const [data = '', signature = ''] = state.split('.');
      const expected = Buffer.from(mac(data));
      const given = Buffer.from(signature);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new InvalidState('The state was not made by this app');
      }
      let payload: StatePayload;
      try {
        payload = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as StatePayload;
      } catch {
        throw new InvalidState('The state cannot be read');
      }
      const age = now.getTime() - new Date(payload.now).getTime();
      if (!(age >= 0 && age <= STATE_TTL_MS)) throw new InvalidState('The state has expired');
      if (!(await dedup.claim(`slack:oauth-state:${payload.id}`, STATE_TTL_MS))) {
        throw new InvalidState('The state was already used');
      }
      return payload.installOptions;
    },
  };
}
