// POST /api/v1/chatbot/{uuid}/data-source/qa | url | upload, POST /api/v1/data-source/{uuid}/update
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  requireHttpUrl,
  validateQaSource,
  validateSourceRename,
  validateUrlSource,
} from '../../service/validate.js';
import { HttpError } from '../http-errors.js';
import type { UploadInput } from '../ingest.js';
import { sourceWire } from '../records.js';
import { owned, ownedChatbot, type RouteContext, type UuidParams } from './context.js';
import { schemas } from './schemas.js';

function parseMeta(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    throw HttpError.badRequest('meta_json', 'must be JSON text holding an object');
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw HttpError.badRequest('meta_json', 'must be JSON text holding an object');
  }
  const record = meta as Record<string, unknown>;
  if (record.reference_source_link !== undefined) {
    requireHttpUrl(record.reference_source_link, 'meta_json.reference_source_link');
  }
  return record;
}

/** Reads the form: exactly one `file`, an optional `meta_json` (and the older separate link). */
async function readUpload(request: FastifyRequest, maxBytes: number): Promise<UploadInput> {
  if (!request.isMultipart()) {
    throw HttpError.badRequest('file', 'is required (send multipart/form-data with a file field)');
  }
  let file: { bytes: Buffer; fileName: string; contentType?: string } | undefined;
  let metaText: string | undefined;
  let legacyLink: string | undefined;
  const parts = request.parts({
    limits: { fileSize: maxBytes, files: 1, fields: 16, fieldSize: 64 * 1024 },
  });
  for await (const part of parts) {
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw HttpError.badRequest(part.fieldname, 'unexpected file field (send it as "file")');
      }
      file = { bytes: await part.toBuffer(), fileName: part.filename, contentType: part.mimetype };
    } else if (part.fieldname === 'meta_json') {
      metaText = String(part.value);
    } else if (part.fieldname === 'reference_source_link') {
      legacyLink = String(part.value);
    }
  }
  if (!file) throw HttpError.badRequest('file', 'is required (the bytes of the file to upload)');
  if (file.fileName.trim() === '') throw HttpError.badRequest('file', 'must have a file name');
  if (file.bytes.byteLength === 0) throw HttpError.badRequest('file', 'must not be empty');
  const meta = parseMeta(metaText);
  if (legacyLink !== undefined && meta.reference_source_link === undefined) {
    meta.reference_source_link = requireHttpUrl(legacyLink, 'reference_source_link');
  }
  return { ...file, meta };
}

export function sourceRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/data-source/qa',
    { schema: schemas.qaSource, config: { check: validateQaSource } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateQaSource(request.body);
      const source = await ctx.ingestor.addQa(
        request.owner,
        chatbot.uuid,
        input.question,
        input.answer,
      );
      return sourceWire(source);
    },
  );

  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/data-source/url',
    { schema: schemas.urlSource, config: { check: validateUrlSource } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateUrlSource(request.body);
      const source = await ctx.ingestor.addUrl(request.owner, chatbot.uuid, input.url.trim());
      return sourceWire(source);
    },
  );

  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/data-source/upload',
    { schema: schemas.byUuid },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const upload = await readUpload(request, ctx.maxUploadBytes);
      const source = await ctx.ingestor.addUpload(request.owner, chatbot.uuid, upload);
      return sourceWire(source);
    },
  );

  app.post<UuidParams>(
    '/api/v1/data-source/:uuid/update',
    { schema: schemas.sourceRename, config: { check: validateSourceRename } },
    async (request) => {
      const source = owned(
        await ctx.repo.getSource(request.params.uuid),
        request.owner,
        'data source',
      );
      const { title } = validateSourceRename(request.body);
      const renamed = await ctx.ingestor.rename(source.uuid, title);
      if (!renamed) throw HttpError.notFound('data source');
      return sourceWire(renamed);
    },
  );
}
