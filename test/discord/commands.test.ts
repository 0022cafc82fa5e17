// /chatbridge: built from the admin table, registered, run with the Manage Server check,
// autocompleted, and `source upload` with an attachment from the fake CDN.
import { afterEach, describe, expect, it } from 'vitest';
import { ApplicationCommandOptionType as T } from 'discord.js';
import { adminCommands } from '../../src/admin/index.js';
import { AGENT_TYPES, VISIBILITIES } from '../../src/service/types.js';
import { buildSlashCommand, commandSize } from '../../adapters/discord/commands/build.js';
import { registerCommands, runDiscordCommand } from '../../adapters/discord/register.js';
import { FakeDiscord, TOKEN } from './fake/discord.js';
import { dispatchInteraction, MANAGE_GUILD, type InteractionRecord } from './fake/interactions.js';
import { startEngineRig, type EngineRig } from './engine-rig.js';
import { alice } from './helpers.js';
import type { FakeMessage } from './fake/payloads.js';

type Option = {
  name: string;
  type: number;
  description: string;
  required?: boolean;
  options?: Option[];
  choices?: { value: string }[];
  autocomplete?: boolean;
};

let rig: EngineRig | undefined;
let fake: FakeDiscord | undefined;
afterEach(async () => {
  await rig?.close();
  await fake?.close();
  rig = undefined;
  fake = undefined;
});

function sub(json: { options?: Option[] }, noun: string, verb: string): Option {
  const group = json.options?.find((o) => o.name === noun && o.type === T.SubcommandGroup);
  const found = group?.options?.find((o) => o.name === verb);
  if (!found) throw new Error(`no /chatbridge ${noun} ${verb}`);
  return found;
}

const answered = (record: InteractionRecord) => (r: InteractionRecord) =>
  r === record && (r.callbacks[0]?.type === 4 || (r.messages[0]?.history.length ?? 0) > 0);

describe('/chatbridge built from the admin table', () => {
  const json = buildSlashCommand(adminCommands) as unknown as {
    options: Option[];
    default_member_permissions: string;
  };

  it('has one group per noun and one subcommand per verb, typed options', () => {
    const groups = json.options.filter((o) => o.type === T.SubcommandGroup).map((o) => o.name);
    expect(groups).toEqual([
      'chatbot',
      'agent',
      'source',
      'tag',
      'session',
      'thread-context',
      'feedback',
    ]);
    // The assistant pane's settings are Slack's alone: not registered here.
    for (const command of adminCommands.filter((c) => c.verb !== '' && c.noun !== 'assistant')) {
      const option = sub(json, command.noun, command.verb);
      expect(option.options?.map((o) => o.name).sort() ?? []).toEqual(
        command.args
          .filter((a) => !a.localOnly)
          .map((a) => a.name)
          .sort(),
      );
    }
    expect(json.options.find((o) => o.name === 'help')?.type).toBe(T.Subcommand);
    const visibility = sub(json, 'chatbot', 'create').options?.find((o) => o.name === 'visibility');
    expect(visibility?.choices?.map((c) => c.value)).toEqual([...VISIBILITIES]);
    const type = sub(json, 'agent', 'create').options?.find((o) => o.name === 'type');
    expect(type).toMatchObject({ type: T.String, required: true });
    expect(type?.choices?.map((c) => c.value)).toEqual([...AGENT_TYPES]);
    expect(sub(json, 'chatbot', 'use').options?.[0]).toMatchObject({
      type: T.String,
      autocomplete: true,
      required: true,
    });
    expect(sub(json, 'source', 'upload').options?.find((o) => o.name === 'file')?.type).toBe(
      T.Attachment,
    );
    expect(sub(json, 'agent', 'update').options?.find((o) => o.name === 'enable')?.type).toBe(
      T.Boolean,
    );
    expect(
      sub(json, 'tag', 'update').options?.find((o) => o.name === 'add-sources')?.autocomplete,
    ).toBe(true);
    expect(json.default_member_permissions).toBe('32');
  });

  it('stays within what Discord accepts', () => {
    expect(commandSize(json as never)).toBeLessThanOrEqual(8000);
    const walk = (options: Option[]) => {
      expect(options.length).toBeLessThanOrEqual(25);
      let seenOptional = false;
      for (const o of options) {
        expect(o.name).toMatch(/^[a-z0-9_-]{1,32}$/);
        expect(o.description.length).toBeGreaterThan(0);
        expect(o.description.length).toBeLessThanOrEqual(100);
        if (o.type !== T.Subcommand && o.type !== T.SubcommandGroup) {
          if (o.required) expect(seenOptional).toBe(false);
          else seenOptional = true;
        }
        walk(o.options ?? []);
      }
    };
    walk(json.options);
  });

  it('registers on a guild or globally, as the CLI does', async () => {
    fake = await new FakeDiscord().start();
    const guild = await registerCommands({
      token: TOKEN,
      apiUrl: fake.apiUrl,
      guildId: fake.guildId,
    });
    expect(guild).toMatchObject({
      scope: 'guild',
      applicationId: fake.applicationId,
      commands: ['chatbridge'],
    });
    expect(fake.commands.get(fake.guildId)).toEqual([buildSlashCommand(adminCommands)]);
    const out: string[] = [];
    const io = {
      out: { write: (t: string) => out.push(t) },
      err: { write: (t: string) => out.push(t) },
    };
    const env = { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: fake.apiUrl };
    expect(await runDiscordCommand(['register'], env, io)).toBe(0);
    expect(fake.commands.get('global')).toHaveLength(1);
    expect(out.join('')).toContain('globally');
    expect(await runDiscordCommand(['register', '--guild', 'abc'], env, io)).toBe(2);
    expect(out.join('')).toContain('--guild: must be a server id');
    expect(await runDiscordCommand(['register'], {}, io)).toBe(2);
    expect(out.join('')).toContain('DISCORD_TOKEN: is required');
    expect(await runDiscordCommand(['register'], { ...env, DISCORD_TOKEN: 'wrong' }, io)).toBe(1);
    expect(out.join('')).not.toContain('wrong');
  });
});

describe('/chatbridge at run time', () => {
  it('refuses an admin command without Manage Server, ephemerally, and serves it with it', async () => {
    rig = await startEngineRig();
    const f = rig.fake;
    const refused = dispatchInteraction(f, {
      user: alice,
      permissions: '0',
      channelId: f.textChannel.id,
      group: 'chatbot',
      sub: 'list',
    });
    await f.waitFor('interaction', answered(refused));
    expect(refused.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(refused.messages[0]?.content).toContain('Manage Server');

    const served = dispatchInteraction(f, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: f.textChannel.id,
      group: 'chatbot',
      sub: 'create',
      options: [
        { name: 'name', type: T.String, value: 'Docs bot' },
        { name: 'visibility', type: T.String, value: 'public' },
        { name: 'citations', type: T.Boolean, value: false },
      ],
    });
    await f.waitFor('interaction', answered(served));
    expect(served.callbacks[0]).toMatchObject({ type: 5, data: { flags: 64 } });
    expect(served.messages[0]?.content).toContain('Created chatbot "Docs bot"');
    const created = (await rig.client.listChatbots()).find((c) => c.name === 'Docs bot');
    expect(created?.meta).toMatchObject({ visibility: 'public', show_citations: false });
    for (const m of served.messages) expect(m.content.length).toBeLessThanOrEqual(2000);
  });

  it('autocompletes chatbots by name and `chatbot use` binds the forum it is typed in', async () => {
    rig = await startEngineRig();
    const f = rig.fake;
    const completing = dispatchInteraction(f, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: f.forum.id,
      group: 'chatbot',
      sub: 'use',
      autocomplete: true,
      options: [{ name: 'chatbot', type: T.String, value: 'hel', focused: true }],
    });
    await f.waitFor(
      'interaction',
      (r: InteractionRecord) => r === completing && r.callbacks.length > 0,
    );
    expect(completing.callbacks[0]).toEqual({
      type: 8,
      data: { choices: [{ name: 'Helper', value: rig.chatbotUuid }] },
    });

    const using = dispatchInteraction(f, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: f.forum.id,
      group: 'chatbot',
      sub: 'use',
      options: [{ name: 'chatbot', type: T.String, value: rig.chatbotUuid }],
    });
    await f.waitFor('interaction', answered(using));
    expect(await rig.state.bindings.get(`discord:${f.guildId}:${f.forum.id}`)).toBe(
      rig.chatbotUuid,
    );
    expect(using.messages[0]?.content).toContain('now answers in this channel');
  });

  it('source upload downloads the attachment, announces it in the channel and links that message', async () => {
    rig = await startEngineRig({ maxUploadBytes: 64 });
    const f = rig.fake;
    const upload = (attachment: ReturnType<FakeDiscord['attachment']>) =>
      dispatchInteraction(f, {
        user: alice,
        permissions: MANAGE_GUILD,
        channelId: f.textChannel.id,
        group: 'source',
        sub: 'upload',
        options: [{ name: 'file', type: T.Attachment, value: attachment.id }],
        attachments: { [attachment.id]: attachment },
      });
    const small = f.attachment(
      'faq.md',
      new TextEncoder().encode('# FAQ\n\nAnswers live here.'),
      'text/markdown',
    );
    const done = upload(small);
    await f.waitFor('interaction', answered(done));
    expect(done.messages[0]?.content).toContain('faq.md');
    expect(
      f.requests.some((r) => r.path.startsWith('/cdn/attachments/') || r.path.includes(small.id)),
    ).toBe(true);
    // Everyone in the channel sees what was added, and that message is the reference link.
    const [visible] = f.botMessages(f.textChannel.id);
    expect(visible?.content).toBe('\u{1f4ce} Added **faq.md** as a data source of **Helper**');
    expect(visible?.history[0]).toContain('Adding **faq.md**');
    expect(visible?.allowedMentions.every((m) => JSON.stringify(m) === '{"parse":[]}')).toBe(true);
    const [record] = await rig.state.sources.list(rig.chatbotUuid);
    expect(record?.link).toBe(
      `https://discord.com/channels/${f.guildId}/${f.textChannel.id}/${visible?.id}`,
    );

    // Too big: refused before anything is shown in the channel.
    const big = f.attachment('big.md', new Uint8Array(65).fill(65));
    const refused = upload(big);
    await f.waitFor('interaction', answered(refused));
    expect(refused.messages[0]?.content).toContain('larger than the upload limit');
    expect(await rig.state.sources.list(rig.chatbotUuid)).toHaveLength(1);
    expect(f.botMessages(f.textChannel.id)).toHaveLength(1);

    // Refused by the service after the notice went up: the notice is taken down again.
    const removed = f.waitFor<FakeMessage>('delete', () => true);
    const empty = upload(f.attachment('empty.md', new Uint8Array(0)));
    await f.waitFor('interaction', answered(empty));
    expect(empty.messages[0]?.content).toContain('file');
    expect((await removed).content).toContain('Adding **empty.md**');
    expect(f.botMessages(f.textChannel.id)).toHaveLength(1);
  });

  it('source upload links the channel when the notice cannot be posted there', async () => {
    rig = await startEngineRig();
    const f = rig.fake;
    f.refusePosts.add(f.textChannel.id);
    const file = f.attachment('notes.txt', new TextEncoder().encode('Opening hours: 9 to 5.'));
    const done = dispatchInteraction(f, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: f.textChannel.id,
      group: 'source',
      sub: 'upload',
      options: [{ name: 'file', type: T.Attachment, value: file.id }],
      attachments: { [file.id]: file },
    });
    await f.waitFor('interaction', answered(done));
    expect(done.messages[0]?.content).toContain('notes.txt');
    const [record] = await rig.state.sources.list(rig.chatbotUuid);
    expect(record?.link).toBe(`https://discord.com/channels/${f.guildId}/${f.textChannel.id}`);
  });
});
