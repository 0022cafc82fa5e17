// A terminal chat: each line is a message in one conversation; lines starting with "/" are
// admin commands. With piped input the answers are printed in order and `done` resolves at the
// end of input, once the last answer is out.
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import {
  localFileReader,
  localFileWriter,
  renderText,
  runAdminLine,
} from '../../src/admin/index.js';
import type { AdminContext } from '../../src/admin/types.js';
import type { ChatAdapter, Conversation, ThreadRef } from '../../src/bridge/types.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { StateStore } from '../../src/state/types.js';
import { createConsoleTarget, type TerminalOutput } from './reply.js';

export interface ConsoleAdapterConfig {
  input: Readable;
  output: TerminalOutput;
  /** Stream answers in place and show a prompt (a TTY on both ends). */
  interactive: boolean;
  userName?: string;
  /** Printed once at start in interactive mode. */
  greeting?: string;
}

export interface ConsoleAdapterDeps {
  conversation: Conversation;
  client: ServiceClient;
  state: StateStore;
  /** The chatbot answering where nothing is bound; admin commands fall back to it too. */
  defaultChatbot?: string;
  /** Largest file `/source upload` reads (CHATBRIDGE_MAX_UPLOAD_BYTES). */
  maxUploadBytes?: number;
}

export interface ConsoleAdapter extends ChatAdapter {
  /** Resolves when input ended and every answer was printed. */
  readonly done: Promise<void>;
}

const HELP = `Type a question and press Enter. Commands:
  /help            admin commands (e.g. /chatbot list, /source add-url <url>)
  /reset           start a new conversation
  /quit            leave`;

export function createConsoleAdapter(
  config: ConsoleAdapterConfig,
  deps: ConsoleAdapterDeps,
): ConsoleAdapter {
  return new ConsoleChat(config, deps);
}

class ConsoleChat implements ConsoleAdapter {
  readonly name = 'console';
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  // One conversation per run: a fresh terminal is a fresh thread.
  private readonly thread: ThreadRef = {
    platform: 'console',
    workspace: 'local',
    channel: 'console',
    thread: randomUUID(),
  };
  private readline: ReturnType<typeof createInterface> | undefined;
  private counter = 0;

  constructor(
    private readonly config: ConsoleAdapterConfig,
    private readonly deps: ConsoleAdapterDeps,
  ) {
    this.done = new Promise<void>((resolve) => (this.resolveDone = resolve));
  }

  async start(): Promise<void> {
    const { output: out, interactive } = this.config;
    const readline = (this.readline = createInterface({
      input: this.config.input,
      output: interactive ? (out as NodeJS.WritableStream) : undefined,
      prompt: 'you> ',
      terminal: interactive,
    }));
    if (interactive && this.config.greeting) out.write(`${this.config.greeting}\n${HELP}\n\n`);
    void this.loop(readline)
      .catch((error: unknown) => out.write(`(input closed: ${(error as Error).message})\n`))
      .finally(() => {
        this.readline?.close();
        this.resolveDone();
      });
  }

  async stop(): Promise<void> {
    this.readline?.close();
    await this.done;
  }

  private adminContext(): AdminContext {
    const { thread, deps } = this;
    return {
      platform: 'console',
      workspace: thread.workspace,
      channel: thread.channel,
      thread: thread.thread,
      userId: 'console',
      isAdmin: true,
      client: deps.client,
      state: deps.state,
      defaultChatbot: deps.defaultChatbot,
      readFile: localFileReader(deps.maxUploadBytes),
      writeFile: localFileWriter(),
    };
  }

  private async handleLine(raw: string): Promise<boolean> {
    const { output: out, interactive } = this.config;
    const line = raw.trim();
    if (line === '') return true;
    if (!interactive) out.write(`you> ${line}\n`);
    if (line === '/quit' || line === '/exit') return false;
    if (line === '/reset') {
      await this.deps.conversation.reset(this.thread);
      out.write('(new conversation)\n');
      return true;
    }
    if (line.startsWith('/')) {
      const command = line === '/help' ? 'help' : line.slice(1);
      const blocks = await runAdminLine(command, this.adminContext());
      out.write(`${renderText(blocks)}\n${line === '/help' ? `\n${HELP}\n` : ''}`);
      return true;
    }
    await this.deps.conversation.handle(
      {
        ...this.thread,
        messageId: `console-${++this.counter}`,
        userId: 'console',
        userName: this.config.userName ?? 'you',
        channelName: 'console',
        text: line,
      },
      createConsoleTarget({ out, live: interactive }),
    );
    return true;
  }

  private async loop(rl: ReturnType<typeof createInterface>): Promise<void> {
    const { output: out, interactive } = this.config;
    if (interactive) rl.prompt();
    // Lines are handled one after another, so piped questions are answered in order.
    for await (const line of rl) {
      const goOn = await this.handleLine(line).catch((error: unknown) => {
        out.write(`(something went wrong: ${(error as Error).message})\n`);
        return true;
      });
      if (!goOn) break;
      if (interactive) rl.prompt();
    }
  }
}
