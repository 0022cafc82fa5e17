// `/chatbridge <command …>`: the shared admin table behind one slash command, acknowledged at
// once and answered ephemerally. `source upload` and a bare `source add-qa` open modals.
import type { App, RespondFn, SlashCommand, types as slackTypes } from '@slack/bolt';
import {
  runAdminCommand,
  runAdminLine,
  type AdminContext,
  type AdminFile,
  type AdminOutput,
} from '../../src/admin/index.js';
import type { Logger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { StateStore } from '../../src/state/types.js';
import { adminBlocks, adminFallbackText } from './admin-render.js';
import { downloadSlackFile, SlackFileError } from './download.js';
import { deliverFiles } from './file-upload.js';
import { unescapeMrkdwn } from './format.js';
import {
  QA_CALLBACK,
  UPLOAD_CALLBACK,
  parseOrigin,
  qaModal,
  textValue,
  uploadModal,
  type ModalOrigin,
  type ViewValues,
} from './modals.js';
import type { SlackUsers } from './users.js';
import type { SlackApi } from './web.js';
import type { FetchLike } from '../shared/outbound.js';

/** The admin table as the Slack surface calls it (replaceable in tests). */
export interface AdminRunner {
  line(line: string, ctx: AdminContext): Promise<AdminOutput[]>;
  command(
    noun: string,
    verb: string,
    args: Record<string, unknown>,
    ctx: AdminContext,
  ): Promise<AdminOutput[]>;
}

export const sharedAdminRunner: AdminRunner = { line: runAdminLine, command: runAdminCommand };

export interface SlackAdminDeps {
  api: SlackApi;
  users: SlackUsers;
  client: ServiceClient;
  state: StateStore;
  defaultChatbot?: string;
  runner: AdminRunner;
  logger: Logger;
  /** The workspace's bot token (file downloads); undefined when it is not installed. */
  botToken: (workspace: string) => string | undefined;
  apiUrl: string;
  admins: readonly string[];
  /** The Enterprise Grid organization of the workspace's installation (its admins count too). */
  enterpriseOf?: (workspace: string) => string | undefined;
  maxUploadBytes: number;
  now?: () => Date;
  /** File downloads and uploads go through it (the proxy variables); the global fetch else. */
  fetch?: FetchLike;
}

const error = (text: string): AdminOutput => ({ kind: 'notice', tone: 'error', text });

export const SESSION_RESET_HINT: AdminOutput = {
  kind: 'notice',
  tone: 'info',
  text:
    'Slack does not tell slash commands which thread they were typed in. To start over, ' +
    'send `reset` as a message in the conversation thread (in a DM, reply `reset` in its ' +
    'thread): the next message there begins a new conversation.',
};

export class SlackAdmin {
  constructor(private readonly deps: SlackAdminDeps) {}

  /**
   * The configured CHATBRIDGE_ADMINS, and admins and owners (users.info, cached) of this
   * installation's own team, or on Enterprise Grid of its own organization. A Slack Connect
   * user from another organization may be an admin there: that does not make them one here.
   */
  async isAdmin(workspace: string, userId: string): Promise<boolean> {
    if (this.deps.admins.includes(userId)) return true;
    try {
      const user = await this.deps.users.get(workspace, userId);
      if (!user.isWorkspaceAdmin) return false;
      if (user.team === workspace) return true;
      const enterprise = this.deps.enterpriseOf?.(workspace);
      if (enterprise !== undefined && user.enterprise === enterprise) return true;
      this.deps.logger.info(
        { workspace, team: user.team, enterprise: user.enterprise },
        'slack: an admin of another team or organization is not an admin here',
      );
      return false;
    } catch (caught) {
      this.deps.logger.warn(
        { err: caught },
        'slack: users.info failed; treating user as non-admin',
      );
      return false;
    }
  }

  async context(workspace: string, channel: string, userId: string): Promise<AdminContext> {
    const { client, state, now, defaultChatbot } = this.deps;
    return {
      platform: 'slack',
      workspace,
      channel,
      userId,
      isAdmin: await this.isAdmin(workspace, userId),
      client,
      state,
      defaultChatbot,
      ...(now ? { now } : {}),
    };
  }

  /** Posts an ephemeral answer to the user where the command was typed. */
  async tell(origin: ModalOrigin, userId: string, output: AdminOutput[]): Promise<void> {
    const args = { user: userId, text: adminFallbackText(output), blocks: adminBlocks(output) };
    try {
      await this.deps.api.deliver(origin.workspace, 'chat.postEphemeral', {
        channel: origin.channel,
        ...args,
      });
    } catch {
      // Not in that channel any more: the app's DM with the user always works.
      await this.deps.api.deliver(origin.workspace, 'chat.postMessage', {
        channel: userId,
        text: args.text,
        blocks: args.blocks,
      });
    }
  }

  /**
   * Registers the handlers. Each acks at once and hands its work to `track`, so no handler holds
   * the HTTP response (the app may process before responding) and shutdown can wait for it.
   */
  register(app: App, track: (job: Promise<unknown>) => void): void {
    app.command('/chatbridge', async ({ command, ack, respond }) => {
      await ack();
      track(this.command(command, respond));
    });
    app.view(UPLOAD_CALLBACK, async ({ ack, view, body }) => {
      const file = (view.state.values as ViewValues).file?.file?.files?.[0];
      if (!file) {
        await ack({ response_action: 'errors', errors: { file: 'Choose a file to upload.' } });
        return;
      }
      if (typeof file.size === 'number' && file.size > this.deps.maxUploadBytes) {
        const mb = (this.deps.maxUploadBytes / 1024 / 1024).toFixed(0);
        await ack({
          response_action: 'errors',
          errors: { file: `The file is larger than ${mb} MB.` },
        });
        return;
      }
      await ack();
      const origin = parseOrigin(view.private_metadata);
      if (!origin) return;
      track(
        this.submitted(origin, body.user.id, () =>
          this.upload(origin, body.user.id, file, view.state.values as ViewValues),
        ),
      );
    });
    app.view(QA_CALLBACK, async ({ ack, view, body }) => {
      await ack();
      const origin = parseOrigin(view.private_metadata);
      if (!origin) return;
      const values = view.state.values as ViewValues;
      track(
        this.submitted(origin, body.user.id, async () => {
          const ctx = await this.context(origin.workspace, origin.channel, body.user.id);
          const args = {
            question: textValue(values, 'question'),
            answer: textValue(values, 'answer'),
          };
          return this.deps.runner.command('source', 'add-qa', args, ctx);
        }),
      );
    });
  }

  private async command(command: SlashCommand, respond: RespondFn): Promise<void> {
    const origin = { workspace: command.team_id, channel: command.channel_id };
    const reply = async (output: AdminOutput[]) => {
      try {
        await respond({
          response_type: 'ephemeral',
          text: adminFallbackText(output),
          blocks: adminBlocks(output) as unknown as slackTypes.KnownBlock[],
        });
      } catch {
        await this.tell(origin, command.user_id, output);
      }
    };
    try {
      const output = await this.slash(
        command.text ?? '',
        origin,
        command.user_id,
        command.trigger_id,
      );
      if (output) {
        await reply(await deliverFiles(this.deps, origin.workspace, command.user_id, output));
      }
    } catch (caught) {
      this.deps.logger.error({ err: caught }, 'slack: /chatbridge failed');
      await reply([error('Something went wrong running that command; see the bridge logs.')]);
    }
  }

  private async submitted(
    origin: ModalOrigin,
    userId: string,
    job: () => Promise<AdminOutput[]>,
  ): Promise<void> {
    let output: AdminOutput[];
    try {
      output = await job();
    } catch (caught) {
      output = [
        error(
          caught instanceof SlackFileError
            ? caught.message
            : 'Something went wrong; see the bridge logs.',
        ),
      ];
      if (!(caught instanceof SlackFileError))
        this.deps.logger.error({ err: caught }, 'slack: modal failed');
    }
    await this.tell(origin, userId, output);
  }

  /** Runs a slash command line; undefined when a modal was opened instead. */
  async slash(
    rawText: string,
    origin: ModalOrigin,
    userId: string,
    triggerId: string,
  ): Promise<AdminOutput[] | undefined> {
    const line = unescapeMrkdwn(rawText).trim() || 'help';
    const ctx = await this.context(origin.workspace, origin.channel, userId);
    const words = line.split(/\s+/).map((word) => word.toLowerCase());
    // Slack sends slash commands without their thread, so the table's "type it in the
    // thread" cannot be followed here; the thread's own word does it.
    if (words[0] === 'session' && words[1] === 'reset') return [SESSION_RESET_HINT];
    const modal =
      words[0] === 'source' && words.length === 2
        ? words[1] === 'upload'
          ? uploadModal(origin, this.deps.maxUploadBytes)
          : words[1] === 'add-qa'
            ? qaModal(origin)
            : undefined
        : undefined;
    if (!modal) return this.deps.runner.line(line, ctx);
    // Non-admins get the table's own polite refusal instead of a modal.
    if (!ctx.isAdmin) return this.deps.runner.command('source', words[1]!, {}, ctx);
    await this.deps.api.deliver(origin.workspace, 'views.open', {
      trigger_id: triggerId,
      view: modal,
    });
    return undefined;
  }

  private async upload(
    origin: ModalOrigin,
    userId: string,
    file: NonNullable<NonNullable<ViewValues[string]>[string]['files']>[number],
    values: ViewValues,
  ): Promise<AdminOutput[]> {
    const ctx = await this.context(origin.workspace, origin.channel, userId);
    if (!ctx.isAdmin) return this.deps.runner.command('source', 'upload', {}, ctx);
    const url = file.url_private_download ?? file.url_private;
    if (!url) return [error('Slack did not say where to download that file from.')];
    const botToken = this.deps.botToken(origin.workspace);
    if (!botToken)
      return [error('This workspace has no installation token; install the app again.')];
    const downloaded = await downloadSlackFile(url, {
      botToken,
      apiUrl: this.deps.apiUrl,
      maxBytes: this.deps.maxUploadBytes,
      ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}),
    });
    const adminFile: AdminFile = {
      name: file.name ?? file.title ?? 'upload',
      bytes: downloaded.bytes,
      ...(file.mimetype ? { contentType: file.mimetype } : {}),
      ...(file.permalink ? { link: file.permalink } : {}),
    };
    const title = textValue(values, 'title');
    return this.deps.runner.command('source', 'upload', title ? { title } : {}, {
      ...ctx,
      file: adminFile,
    });
  }
}
