// How an answer looks in a terminal. On a TTY it streams in place (redrawn when the renderer
// rewrites earlier text); when output is piped, each answer is printed once, whole, at the end.
import type {
  FinalContent,
  ReplyMessage,
  ReplyTarget,
  Source,
  SurfaceLimits,
} from '../../src/bridge/types.js';

export interface TerminalOutput {
  write(text: string): unknown;
  /** Terminal width, when known (TTY). */
  columns?: number;
}

export interface ConsoleTargetOptions {
  out: TerminalOutput;
  /** Stream in place (TTY) or print whole answers (piped). */
  live: boolean;
  /** Name shown before answers. */
  botName?: string;
}

const LIVE_LIMITS: SurfaceLimits = { maxChars: Number.POSITIVE_INFINITY, minUpdateMs: 50 };
const PIPED_LIMITS: SurfaceLimits = { maxChars: Number.POSITIVE_INFINITY, minUpdateMs: 1000 };

export function formatSources(sources: Source[]): string {
  if (sources.length === 0) return '';
  const lines = sources.map((s) => `  [${s.number}] ${s.title}${s.link ? ` <${s.link}>` : ''}`);
  return `\nSources:\n${lines.join('\n')}\n`;
}

export function formatFinal(content: FinalContent): string {
  const notice = content.notice ? `\n(${content.notice.text})` : '';
  return `${content.text}${notice}`;
}

/** Rows a block of text occupies on a terminal of the given width. */
export function rowsOf(text: string, columns: number): number {
  return text
    .split('\n')
    .reduce((rows, line) => rows + Math.max(1, Math.ceil(line.length / Math.max(1, columns))), 0);
}

export function createConsoleTarget(options: ConsoleTargetOptions): ReplyTarget {
  const { out, live } = options;
  const prefix = `${options.botName ?? 'bot'}> `;
  let workingShown = false;

  const clearWorking = () => {
    if (workingShown) out.write('\r\x1b[K');
    workingShown = false;
  };

  return {
    limits: live ? LIVE_LIMITS : PIPED_LIMITS,
    async showWorking() {
      if (!live || workingShown) return;
      out.write(`${prefix}\x1b[2m…thinking\x1b[0m`);
      workingShown = true;
    },
    async stopWorking() {
      clearWorking();
    },
    async openMessage(text: string): Promise<ReplyMessage> {
      clearWorking();
      let shown = '';
      const draw = (next: string) => {
        if (!live) return;
        if (shown === '') {
          out.write(prefix + next);
        } else if (next.startsWith(shown)) {
          out.write(next.slice(shown.length));
        } else {
          // Earlier text changed (a closed fence, a numbered marker): redraw the whole block.
          const rows = rowsOf(prefix + shown, out.columns ?? 80);
          out.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ''}\x1b[J${prefix}${next}`);
        }
        shown = next;
      };
      draw(text);
      return {
        async update(next: string) {
          draw(next);
        },
        async finish(content: FinalContent) {
          const final = formatFinal(content);
          if (live) draw(final);
          else out.write(prefix + final);
          out.write(`\n${formatSources(content.sources)}`);
        },
      };
    },
  };
}
