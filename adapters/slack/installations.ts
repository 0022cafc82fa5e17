// Bolt's InstallationStore on chatbridge's state store: each installation (Bolt's own object,
// bot token inside) is kept encrypted under a key chosen by Bolt's rule, so every replica
// sharing the store can authorize every workspace. app_uninstalled and tokens_revoked delete
// what they name.
import { CodedError, ErrorCode } from '../../src/errors.js';
import type { Installation, InstallationQuery, InstallationStore } from '@slack/bolt';
import type { Logger } from '../../src/log.js';
import type { EncryptedInstallations } from '../../src/state/index.js';

interface Where {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}

/** Bolt's rule: an org-wide install is found by its enterprise, any other by its team. */
export function installationKey(where: Where): string {
  if (where.isEnterpriseInstall && where.enterpriseId)
    return `slack:enterprise:${where.enterpriseId}`;
  if (where.teamId) return `slack:team:${where.teamId}`;
  throw new Error('Slack installation: has neither a team id nor an org-wide enterprise id');
}

function describe(where: Where): string {
  return where.isEnterpriseInstall && where.enterpriseId
    ? `enterprise ${where.enterpriseId} (org-wide)`
    : `workspace ${where.teamId ?? '?'}`;
}

/** The workspace or org no installation is stored for (uninstalled, or never installed). */
export class NotInstalledError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.SlackNotInstalled, message);
  }
}

export interface TokensRevoked {
  /** Bot user ids whose tokens were revoked. */
  bot?: string[];
  /** User ids whose user tokens were revoked. */
  oauth?: string[];
}

export class SlackInstallationStore implements InstallationStore {
  constructor(
    private readonly records: EncryptedInstallations,
    private readonly logger: Logger,
  ) {}

  async storeInstallation(installation: Installation): Promise<void> {
    const where = {
      teamId: installation.team?.id,
      enterpriseId: installation.enterprise?.id,
      isEnterpriseInstall: installation.isEnterpriseInstall === true,
    };
    await this.records.save(installationKey(where), installation);
    this.logger.info({ ...where, botUserId: installation.bot?.userId }, 'slack: app installed');
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation> {
    const record = await this.records.fetch(installationKey(query));
    if (!record) throw new NotInstalledError(`Slack ${describe(query)} has no installation`);
    return record.installation as Installation;
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.records.delete(installationKey(query));
  }

  /** app_uninstalled: the installation goes. */
  async uninstalled(where: Where): Promise<void> {
    await this.records.delete(installationKey(where));
    this.logger.info(where, 'slack: app uninstalled; installation deleted');
  }

  /**
   * tokens_revoked: a revoked bot token deletes the installation (nothing can be done without
   * it); a revoked user token is removed from it. Returns whether the bot token went.
   */
  async revoked(where: Where, tokens: TokensRevoked): Promise<boolean> {
    const key = installationKey(where);
    const installation = (await this.records.fetch(key))?.installation as Installation | undefined;
    if (!installation) return false;
    const bots = tokens.bot ?? [];
    const botUserId = installation.bot?.userId;
    if (bots.length > 0 && (!botUserId || bots.includes(botUserId))) {
      await this.records.delete(key);
      this.logger.info(where, 'slack: bot token revoked; installation deleted');
      return true;
    }
    const user = installation.user as Installation['user'] | undefined;
    if (user?.id && user.token && (tokens.oauth ?? []).includes(user.id)) {
      const { token: _token, refreshToken: _refresh, expiresAt: _expires, ...rest } = user;
      await this.records.save(key, { ...installation, user: rest });
      this.logger.info(where, 'slack: user token revoked; removed from the installation');
    }
    return false;
  }
}
