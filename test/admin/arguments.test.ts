// Every user mistake is answered (never thrown) with a notice naming the argument and the rule,
// followed by the command's usage.
import { describe, expect, it } from 'vitest';
import {
  runAdminCommand,
  runAdminLine,
  runAdminTokens,
  type AdminOutput,
} from '../../src/admin/index.js';
import { errorsOf, makeContext } from './context.js';

async function bound() {
  const ctx = await makeContext();
  const bot = ctx.client.addChatbot('Support');
  await ctx.state.bindings.set('test:W1:C1', bot.uuid);
  return ctx;
}

async function errorFor(line: string): Promise<string> {
  const ctx = await bound();
  const out = await runAdminLine(line, ctx);
  const errors = errorsOf(out);
  expect(errors, `no error for: ${line}`).toHaveLength(1);
  return errors[0] as string;
}

const usageOf = (out: AdminOutput[]) =>
  out.find((b) => b.kind === 'text' && b.text.startsWith('Usage:'));

describe('binding words to arguments', () => {
  it('names an unknown flag and lists the real ones', async () => {
    const text = await errorFor('chatbot create Bot --colour red');
    expect(text).toMatch(/^--colour: is not an option of "chatbot create"/);
    expect(text).toContain('--visibility');
  });

  it('names a missing positional', async () => {
    expect(await errorFor('chatbot create')).toBe('<name>: is required');
    expect(await errorFor('source add-qa "Only a question"')).toBe('<answer>: is required');
  });

  it('names a missing required flag', async () => {
    expect(await errorFor('agent create Helper')).toBe('--type: is required');
    expect(await errorFor('tag create Docs')).toBe('--color: is required');
  });

  it('names a flag without its value', async () => {
    expect(await errorFor('chatbot create Bot --visibility')).toBe('--visibility: needs a value');
    expect(await errorFor('chatbot create Bot --visibility --citations on')).toBe(
      '--visibility: needs a value',
    );
  });

  it('refuses a flag given twice', async () => {
    expect(await errorFor('chatbot create Bot --visibility public --visibility private')).toBe(
      '--visibility: is given twice',
    );
  });

  it('refuses extra words and says to quote', async () => {
    expect(await errorFor('chatbot create Support bot')).toMatch(
      /unexpected "bot".*"double quotes"/,
    );
  });

  it('accepts --flag=value, flags before positionals and -- to end flags', async () => {
    const ctx = await bound();
    await runAdminLine('chatbot create --visibility=public -- --weird-name', ctx);
    expect(ctx.client.callsOf('createChatbot')[0]?.[0]).toEqual({
      name: '--weird-name',
      visibility: 'public',
    });
  });

  it('reads an en or em dash as "--" (chat clients replace it)', async () => {
    const ctx = await bound();
    await runAdminLine('chatbot create Bot \u2014visibility public \u2013citations on', ctx);
    expect(ctx.client.callsOf('createChatbot')[0]?.[0]).toEqual({
      name: 'Bot',
      visibility: 'public',
      show_citations: true,
    });
  });

  it('takes words already split (CLI argv) without re-quoting', async () => {
    const ctx = await bound();
    await runAdminTokens(['source', 'add-qa', 'Is it "free"?', "Yes, it's free \\o/"], ctx);
    expect(ctx.client.callsOf('addQaSource')[0]?.[1]).toEqual({
      question: 'Is it "free"?',
      answer: "Yes, it's free \\o/",
    });
  });

  it('follows the error with the usage line', async () => {
    const ctx = await bound();
    const out = await runAdminLine('chatbot create Bot --rate-limit 5', ctx);
    expect(usageOf(out)).toEqual({
      kind: 'text',
      text:
        'Usage: chatbot create <name> [--visibility private|public|hybrid] [--rate-limit N/S] ' +
        '[--rate-limit-message TEXT] [--citations on|off]',
    });
  });

  it('names unknown commands and verbs', async () => {
    expect(await errorFor('chatbots list')).toMatch(/"chatbots" is not a command.*chatbot, agent/);
    expect(await errorFor('chatbot remove x')).toMatch(
      /"chatbot remove" is not a command: chatbot create/,
    );
    expect(await errorFor('tag')).toMatch(
      /"tag" needs one more word: tag create, tag update, tag list/,
    );
  });

  it('reports a quoting mistake as an error, not an exception', async () => {
    expect(await errorFor('chatbot create "Support')).toMatch(/double quote/);
  });
});

describe('validation by kind', () => {
  it('enum', async () => {
    expect(await errorFor('chatbot create Bot --visibility secret')).toBe(
      '--visibility: must be one of private, public, hybrid',
    );
    expect(await errorFor('agent create A --type robot')).toMatch(
      /^--type: must be one of user-facing, background/,
    );
  });

  it('rate-limit: shape, count and window with the foundation bounds', async () => {
    expect(await errorFor('chatbot create Bot --rate-limit 20')).toMatch(
      /^--rate-limit: must be N\/S: N messages per S seconds, like 20\/240 \(got "20"\)$/,
    );
    expect(await errorFor('chatbot create Bot --rate-limit 0/60')).toBe(
      '--rate-limit: N (messages) must be a whole number from 1 to 100',
    );
    expect(await errorFor('chatbot create Bot --rate-limit 101/60')).toMatch(
      /N \(messages\).*1 to 100/,
    );
    expect(await errorFor('chatbot create Bot --rate-limit 20/361')).toBe(
      '--rate-limit: S (seconds) must be a whole number from 1 to 360',
    );
  });

  it('boolean', async () => {
    expect(await errorFor('chatbot create Bot --citations maybe')).toBe(
      '--citations: must be on or off (got "maybe")',
    );
  });

  it('number, with the documented 0 to 1 range', async () => {
    expect(await errorFor('agent update "General Q&A" --temperature warm')).toMatch(
      /^--temperature: must be a number/,
    );
    expect(await errorFor('agent update "General Q&A" --bias 1.5')).toBe(
      '--bias: must be a number from 0 to 1',
    );
    expect(await errorFor('agent create A --type user-facing --stickness -1')).toBe(
      '--stickness: must be a number from 0 to 1',
    );
  });

  it('colour', async () => {
    expect(await errorFor('tag create Docs --color red')).toBe(
      '--color: must be "#" followed by six hex digits, like #1a2b3c',
    );
  });

  it('url', async () => {
    expect(await errorFor('source add-url example.com')).toBe(
      '<url>: must be an absolute http(s) address',
    );
    expect(await errorFor('source add-url ftp://example.com/x')).toBe(
      '<url>: must use http or https',
    );
  });

  it('text must not be empty', async () => {
    expect(await errorFor('chatbot create ""')).toBe('<name>: is required');
    expect(await errorFor('chatbot create "   "')).toBe('<name>: must not be empty');
  });

  it('variables: JSON and name=value forms, each mistake named', async () => {
    expect(await errorFor('agent update "General Q&A" --variables "{bad"')).toMatch(
      /^--variables: is not valid JSON/,
    );
    expect(await errorFor('agent update "General Q&A" --variables novalue')).toBe(
      '--variables: "novalue" must be name=value (or give a JSON array)',
    );
    expect(await errorFor('agent update "General Q&A" --variables \'[{"name":""}]\'')).toBe(
      '--variables: variables[0].name must not be empty',
    );
  });

  it('file: a path needs a reader, and nothing attached is named', async () => {
    expect(await errorFor('source upload notes.txt')).toBe(
      '<file>: attach the file to the command here; a path only works on the command line',
    );
    expect(await errorFor('source upload')).toBe(
      '<file>: is required: attach a file to the command',
    );
    const ctx = await bound();
    ctx.readFile = async () => {
      throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
    };
    expect(errorsOf(await runAdminLine('source upload missing.txt', ctx))).toEqual([
      '<file>: cannot read "missing.txt" (ENOENT)',
    ]);
  });

  it('references: unknown and ambiguous names', async () => {
    const ctx = await bound();
    ctx.client.addChatbot('Twin');
    const twin2 = ctx.client.addChatbot('twin');
    const [unknown] = errorsOf(await runAdminLine('chatbot use Nope', ctx));
    expect(unknown).toMatch(
      /^<chatbot>: no chatbot named "Nope" or with that uuid \(known: Support, Twin, twin\)/,
    );
    const [ambiguous] = errorsOf(await runAdminLine('chatbot use TWIN', ctx));
    expect(ambiguous).toMatch(
      /^<chatbot>: "TWIN" matches 2 chatbots: "Twin" \(.+\), "twin" \(.+\); give the uuid/,
    );
    expect(errorsOf(await runAdminLine(`chatbot use ${twin2.uuid}`, ctx))).toEqual([]);
    const [agent] = errorsOf(await runAdminLine('agent update Ghost --enable', ctx));
    expect(agent).toMatch(/^<agent>: no agent named "Ghost"/);
  });

  it('typed options (Discord): unknown names and wrong values are named too', async () => {
    const ctx = await bound();
    expect(
      errorsOf(await runAdminCommand('chatbot', 'create', { name: 'B', colour: 'x' }, ctx))[0],
    ).toMatch(/^--colour: is not an option/);
    expect(
      errorsOf(
        await runAdminCommand('chatbot', 'create', { name: 'B', 'rate-limit': '3' }, ctx),
      )[0],
    ).toMatch(/^--rate-limit: must be N\/S/);
    expect(errorsOf(await runAdminCommand('chatbot', 'drop', {}, ctx))[0]).toMatch(
      /"chatbot drop" is not a command/,
    );
  });
});
