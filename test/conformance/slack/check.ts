// Checks every request the bridge made to the fake Slack: the method's arguments (methods.ts,
// from @slack/web-api's types), Block Kit's limits (block-kit.ts) and the chat methods' rules
// (markdown_text ≤ 12,000 and never beside text or blocks; text ≤ 40,000; a message needs
// something to show). FakeSlack.close() runs it, so every Slack test checks what it sent.
import { checkBlocks, checkView, LIMITS } from './block-kit.js';
import { METHOD_ARGS, NO_ARGS, type SlackMethod } from './methods.js';
import { tally } from '../tally.js';

export interface RecordedCall {
  method: string;
  args: Record<string, unknown>;
}

const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.update', 'chat.postEphemeral']);
const MARKDOWN_METHODS = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
]);

/** The problems of one call; none when it conforms. */
export function checkCall(call: RecordedCall): string[] {
  const { method, args } = call;
  if (NO_ARGS.has(method)) return [];
  const problems: string[] = [];
  if (method === 'response_url') {
    // A response_url body is a message: text and/or blocks, plus how to post it.
    if (typeof args.text !== 'string' && args.blocks === undefined)
      problems.push('nothing to show');
    if (typeof args.text === 'string') over(problems, 'text', args.text, LIMITS.text);
    if (args.blocks !== undefined) problems.push(...checkBlocks(args.blocks, 'blocks'));
    return problems;
  }
  const schema = METHOD_ARGS[method as SlackMethod];
  if (!schema) return [`${method}: a method the conformance rules do not know`];
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.') || '(arguments)'}: ${issue.message}`);
    }
  }
  const markdown = args.markdown_text;
  if (MARKDOWN_METHODS.has(method) && typeof markdown === 'string') {
    over(problems, 'markdown_text', markdown, LIMITS.markdownText);
    if (MESSAGE_METHODS.has(method) && (args.text !== undefined || args.blocks !== undefined)) {
      problems.push('markdown_text cannot go with text or blocks');
    }
  }
  if (typeof args.text === 'string') over(problems, 'text', args.text, LIMITS.text);
  if (MESSAGE_METHODS.has(method) && !markdown && !args.text && args.blocks === undefined) {
    problems.push('a message with nothing to show');
  }
  if (args.blocks !== undefined) problems.push(...checkBlocks(args.blocks, 'blocks'));
  if (method === 'views.open') problems.push(...checkView(args.view));
  return problems.map((problem) => `${method} ${problem}`);
}

function over(problems: string[], where: string, value: string, max: number): void {
  if (value.length > max)
    problems.push(`${where}: ${value.length} characters, Slack allows ${max}`);
}

/** Throws with every problem of these calls; counts them in the run's tally either way. */
export function assertSlackConformance(calls: readonly RecordedCall[]): void {
  const problems = calls.flatMap((call) => checkCall(call));
  tally('slack', calls.length, problems);
  if (problems.length > 0) {
    throw new Error(`Slack conformance: ${problems.length} violations\n${problems.join('\n')}`);
  }
}
