import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FormData } from 'undici';
import { isServiceError } from '../../src/service/errors.js';
import { minimalPdf } from './fixtures.js';
import { type Harness, readPieces, startHarness } from './helpers.js';

let h: Harness;
let small: Harness;
beforeAll(async () => {
  h = await startHarness();
  small = await startHarness({ maxUploadBytes: 1000, bodyLimit: 2000 });
});
afterAll(async () => {
  await h.close();
  await small.close();
});

const form = (file: Blob | undefined, fileName: string, meta?: string): FormData => {
  const data = new FormData();
  if (file) data.append('file', file, fileName);
  if (meta !== undefined) data.append('meta_json', meta);
  return data;
};

describe('qa sources', () => {
  it('are indexed at once and answer questions', async () => {
    const bot = await h.client.createChatbot({ name: 'QA', show_citations: true });
    const source = await h.client.addQaSource(bot.uuid, {
      question: 'What is the warranty period?',
      answer: 'Every device carries a two year warranty from the date of purchase.',
    });
    expect(source).toMatchObject({
      type: 'qa',
      status: 'success',
      title: 'What is the warranty period?',
    });
    expect(source.tokens).toBeGreaterThan(5);
    expect(source.uuid).toMatch(/^[0-9a-f]{32}$/);
    const session = await h.client.createSession(bot.uuid);
    const text = (
      await readPieces(
        await h.client.streamMessage(session.uuid, { query: 'How long is the warranty?' }),
      )
    ).join('');
    expect(text).toContain('two year warranty');
  });

  it.each([
    [{ answer: 'a' }, 'question'],
    [{ question: 'q' }, 'answer'],
    [{ question: '', answer: 'a' }, 'question'],
    [{ question: 'q', answer: 7 }, 'answer'],
  ])('refuses %j naming %s', async (body, field) => {
    const bot = await h.client.createChatbot({ name: 'QA bad' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/qa`, body);
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
  });
});

describe('uploads', () => {
  const files: [string, string | Buffer, string][] = [
    ['notes.txt', 'The office opens at nine in the morning on weekdays.\n', 'opens at nine'],
    [
      'guide.md',
      '# Setup\n\nInstall the agent with the installer, then restart the machine.\n',
      'restart the machine',
    ],
    [
      'page.html',
      '<html><head><title>Shipping</title></head><body><p>Parcels ship from Lisbon every Tuesday.</p><script>var x=1</script></body></html>',
      'ship from Lisbon',
    ],
    ['prices.csv', 'plan,price\nbasic,10 euros per month\npremium,25 euros per month\n', 'premium'],
    [
      'config.json',
      JSON.stringify({ support: { email: 'help@example.com', hours: 'nine to five' } }),
      'help@example.com',
    ],
    [
      'refunds.pdf',
      minimalPdf('Refunds are processed within five business days.'),
      'five business days',
    ],
  ];

  it.each(files)('reads %s honestly and answers from it', async (fileName, content, expected) => {
    const bot = await h.client.createChatbot({ name: `Upload ${fileName}` });
    const bytes =
      typeof content === 'string' ? new TextEncoder().encode(content) : new Uint8Array(content);
    const source = await h.client.uploadSource(bot.uuid, {
      file: bytes,
      file_name: fileName,
      reference_source_link: 'https://example.com/docs',
    });
    expect(source).toMatchObject({
      type: 'upload',
      status: 'success',
      file_name: fileName,
      title: fileName,
    });
    expect(source.file_size).toBe(bytes.byteLength);
    expect(source.tokens).toBeGreaterThan(0);
    expect(JSON.parse(source.meta_json)).toMatchObject({
      reference_source_link: 'https://example.com/docs',
    });
    const session = await h.client.createSession(bot.uuid);
    const query = `What does it say about ${expected}?`;
    const text = (await readPieces(await h.client.streamMessage(session.uuid, { query }))).join('');
    expect(text).toContain(expected);
  });

  it('answers 409 with the existing source for the same bytes', async () => {
    const bot = await h.client.createChatbot({ name: 'Dup' });
    const file = new TextEncoder().encode('Duplicate content about llamas.');
    const first = await h.client.uploadSource(bot.uuid, { file, file_name: 'a.txt' });
    const raw = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/upload`, undefined, {
      rawBody: form(new Blob([file]), 'b.txt'),
    });
    expect(raw.status).toBe(409);
    expect(raw.json.uuid).toBe(first.uuid);
    expect(raw.json.file_name).toBe('a.txt');
    await expect(h.client.uploadSource(bot.uuid, { file, file_name: 'a.txt' })).rejects.toSatisfy(
      (e) => isServiceError(e, 'conflict') && e.existing?.uuid === first.uuid,
    );
    // Another chatbot may hold the same bytes.
    const other = await h.client.createChatbot({ name: 'Dup 2' });
    expect((await h.client.uploadSource(other.uuid, { file, file_name: 'a.txt' })).status).toBe(
      'success',
    );
  });

  it('answers 415 naming the accepted types for an unknown type', async () => {
    const bot = await h.client.createChatbot({ name: 'Types' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/upload`, undefined, {
      rawBody: form(new Blob([new Uint8Array([77, 90, 0, 1])]), 'tool.exe'),
    });
    expect(res.status).toBe(415);
    expect(res.json.error.message).toMatch(/file type not allowed: .*tool\.exe.*accepted: .*\.pdf/);
    expect(res.json.error.field).toBe('file');
  });

  it('answers 413 above the size cap, 200 at it', async () => {
    const bot = await small.client.createChatbot({ name: 'Big' });
    const path = `/api/v1/chatbot/${bot.uuid}/data-source/upload`;
    const over = await small.raw('POST', path, undefined, {
      rawBody: form(new Blob(['a '.repeat(501)]), 'big.txt'),
    });
    expect(over.status).toBe(413);
    expect(over.json.error).toMatchObject({ code: 'too_large', field: 'file' });
    expect(over.json.error.message).toContain('1000 bytes');
    const at = await small.raw('POST', path, undefined, {
      rawBody: form(new Blob(['b '.repeat(500)]), 'ok.txt'),
    });
    expect(at.status).toBe(200);
    expect(at.json.file_size).toBe(1000);
  });

  it.each([
    ['no file', () => form(undefined, '', '{}'), 'file'],
    ['an empty file', () => form(new Blob([]), 'empty.txt'), 'file'],
    [
      'meta_json that is not JSON',
      () => form(new Blob(['hello there']), 'x.txt', '{oops'),
      'meta_json',
    ],
    [
      'meta_json that is a list',
      () => form(new Blob(['hello again']), 'y.txt', '[1]'),
      'meta_json',
    ],
    [
      'a bad reference link',
      () => form(new Blob(['hello link']), 'z.txt', '{"reference_source_link":"ftp://x"}'),
      'meta_json.reference_source_link',
    ],
  ])('refuses %s with 400', async (_name, body, field) => {
    const bot = await h.client.createChatbot({ name: 'Bad upload' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/upload`, undefined, {
      rawBody: body(),
    });
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe(field);
  });

  it('refuses a JSON body on the upload route with 400 naming file', async () => {
    const bot = await h.client.createChatbot({ name: 'Not multipart' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/upload`, {
      file: 'x',
    });
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe('file');
  });

  it('answers 400 for a damaged PDF', async () => {
    const bot = await h.client.createChatbot({ name: 'Damaged' });
    const res = await h.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/upload`, undefined, {
      rawBody: form(new Blob(['%PDF-1.4 this is not really a pdf']), 'broken.pdf'),
    });
    expect(res.status).toBe(400);
    expect(res.json.error.field).toBe('file');
  });
});

describe('rename', () => {
  it('changes the title in responses and in citations', async () => {
    const bot = await h.client.createChatbot({ name: 'Rename', show_citations: true });
    const source = await h.client.addQaSource(bot.uuid, {
      question: 'Where is the head office?',
      answer: 'The head office is in Porto, next to the river.',
    });
    const renamed = await h.client.renameSource(source.uuid, { title: 'Company facts' });
    expect(renamed).toMatchObject({ uuid: source.uuid, title: 'Company facts', status: 'success' });
    const session = await h.client.createSession(bot.uuid);
    await readPieces(
      await h.client.streamMessage(session.uuid, { query: 'Where is the head office?' }),
    );
    const [message] = await h.client.listMessages(session.uuid);
    const entries = Object.values(message!.cite_data);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e) => e.title === 'Company facts')).toBe(true);
  });

  it('validates the title and answers 404 for an unknown source', async () => {
    const bot = await h.client.createChatbot({ name: 'Rename bad' });
    const source = await h.client.addQaSource(bot.uuid, { question: 'q', answer: 'a' });
    for (const body of [{}, { title: '' }, { title: 4 }]) {
      const res = await h.raw('POST', `/api/v1/data-source/${source.uuid}/update`, body);
      expect(res.status).toBe(400);
      expect(res.json.error.field).toBe('title');
    }
    expect((await h.raw('POST', '/api/v1/data-source/missing/update', { title: 't' })).status).toBe(
      404,
    );
  });
});

describe('bodies', () => {
  it('answers 413 for a JSON body above the limit and 400 for malformed JSON', async () => {
    const bot = await small.client.createChatbot({ name: 'Body' });
    const big = await small.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/qa`, {
      question: 'q',
      answer: 'x'.repeat(3000),
    });
    expect(big.status).toBe(413);
    expect(big.json.error.field).toBe('body');
    const bad = await small.raw('POST', `/api/v1/chatbot/${bot.uuid}/data-source/qa`, undefined, {
      rawBody: '{"question": "q", ',
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'invalid_json', field: 'body' });
  });
});
