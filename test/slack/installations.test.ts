// Bolt's installation store on the sealed state store: Bolt's key rule (org-wide by enterprise,
// otherwise by team), and what app_uninstalled / tokens_revoked delete.
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import {
  installationKey,
  NotInstalledError,
  SlackInstallationStore,
} from '../../adapters/slack/installations.js';
import { silentLogger } from '../../src/log.js';
import { EncryptedInstallations, openState } from '../../src/state/index.js';

async function store() {
  const state = await openState('memory://');
  const records = new EncryptedInstallations(state.installations, randomBytes(32));
  return { state, store: new SlackInstallationStore(records, silentLogger) };
}

const teamInstall = (team: string, enterprise?: string): Installation =>
  ({
    team: { id: team },
    enterprise: enterprise ? { id: enterprise } : undefined,
    isEnterpriseInstall: false,
    bot: { token: `tok-${team}`, userId: `UBOT${team}`, id: `B${team}`, scopes: [] },
    user: { id: 'UINSTALLER', token: 'user-token', refreshToken: 'refresh', expiresAt: 1 },
  }) as unknown as Installation;

describe('installationKey', () => {
  it('keys an org-wide install by its enterprise and any other by its team', () => {
    expect(installationKey({ enterpriseId: 'E1', teamId: 'T1', isEnterpriseInstall: true })).toBe(
      'slack:enterprise:E1',
    );
    expect(installationKey({ enterpriseId: 'E1', teamId: 'T1', isEnterpriseInstall: false })).toBe(
      'slack:team:T1',
    );
    expect(installationKey({ teamId: 'T1' })).toBe('slack:team:T1');
    expect(() => installationKey({ isEnterpriseInstall: false })).toThrow(/neither a team id/);
  });
});

describe('SlackInstallationStore', () => {
  it('finds a workspace of an enterprise installed on its own by its team', async () => {
    const { state, store: s } = await store();
    await s.storeInstallation(teamInstall('T1', 'E1'));
    const found = await s.fetchInstallation({
      teamId: 'T1',
      enterpriseId: 'E1',
      isEnterpriseInstall: false,
    });
    expect(found.bot?.token).toBe('tok-T1');
    await expect(
      s.fetchInstallation({ teamId: 'T2', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toBeInstanceOf(NotInstalledError);
    await state.close();
  });

  it('tokens_revoked: a user token is removed, the bot token deletes the installation', async () => {
    const { state, store: s } = await store();
    await s.storeInstallation(teamInstall('T1'));
    const where = { teamId: 'T1', isEnterpriseInstall: false };
    const query = { ...where, enterpriseId: undefined };
    expect(await s.revoked(where, { oauth: ['UINSTALLER'] })).toBe(false);
    const kept = await s.fetchInstallation(query);
    expect(kept.user).toEqual({ id: 'UINSTALLER' });
    expect(kept.bot?.token).toBe('tok-T1');
    expect(await s.revoked(where, { bot: ['UBOTOTHER'] })).toBe(false);
    expect(await s.revoked(where, { bot: ['UBOTT1'] })).toBe(true);
    await expect(s.fetchInstallation(query)).rejects.toBeInstanceOf(NotInstalledError);
    expect(await s.revoked(where, { bot: ['UBOTT1'] })).toBe(false);
    await state.close();
  });
});
