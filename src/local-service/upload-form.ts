// Reading an upload's multipart form: exactly one `file`, an optional `meta_json` (and the
// older separate reference_source_link). Every way a form can be broken — no boundary, too
// many fields or parts, cut off, stalled, too large, meta_json nested too deep — ends in a 4xx
// in the service's error shape, never a 500, and a stalled client does not hold the service.
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { requireHttpUrl } from '../service/validate.js';
import { HttpError } from './http-errors.js';
import type { UploadInput } from './ingest.js';
import { checkJsonDepth } from './json-depth.js';

/** Form fields besides the file: meta_json and reference_source_link, with room to spare. */
const MAX_FIELDS = 16;
const MAX_FIELD_BYTES = 64 * 1024;

export interface UploadLimits {
  maxFileBytes: number;
  /** Longest silence while the form is still arriving. */
  idleTimeoutMs: number;
}

const META_RULE = 'must be JSON text holding an object';

function parseMeta(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  checkJsonDepth(text, 'meta_json');
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch {
    throw HttpError.badRequest('meta_json', META_RULE);
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
    throw HttpError.badRequest('meta_json', META_RULE);
  }
  const record = meta as Record<string, unknown>;
  if (record.reference_source_link !== undefined) {
    requireHttpUrl(record.reference_source_link, 'meta_json.reference_source_link');
  }
  return record;
}

/** Rejects when no bytes of the request arrive for `ms`; `stop` ends the watch. */
function watchForStall(request: FastifyRequest, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  let fail: (error: HttpError) => void = () => undefined;
  const stalled = new Promise<never>((_, reject) => {
    fail = reject;
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // The rest of the body will not be read: close the connection after the answer.
      const error = new HttpError(
        400,
        'incomplete_body',
        `body: no bytes arrived for ${ms} ms before the form ended`,
        {
          field: 'body',
          headers: { connection: 'close' },
        },
      );
      fail(error);
    }, ms);
  };
  request.raw.on('data', arm);
  arm();
  return {
    /** `promise`, or the stall if it comes first. */
    race: <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, stalled]),
    stop: () => {
      clearTimeout(timer);
      request.raw.off('data', arm);
    },
  };
}

/** A failure of the form itself (not of what it says) as a 4xx the caller can act on. */
function formError(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof HttpError || (typeof code === 'string' && code.startsWith('FST_'))) {
    return error; // already ours, or one http-errors.ts maps (limits, file too large)
  }
  if ((error as { kind?: unknown } | null)?.kind === 'validation') return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new HttpError(
    400,
    'invalid_multipart',
    `body: is not a complete multipart/form-data body (${reason})`,
    {
      field: 'body',
    },
  );
}

type Parts = AsyncIterator<Multipart>;

/**
 * The error a failed part hid: when the parser stops on a limit it cuts the part being read
 * (which fails as "premature close") and queues the limit's own error behind it.
 */
async function underlyingError(parts: Parts, error: unknown): Promise<unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_STREAM_PREMATURE_CLOSE') return error;
  try {
    await parts.next();
  } catch (queued) {
    return queued;
  }
  return error;
}

async function readParts(
  request: FastifyRequest,
  limits: UploadLimits,
  watch: ReturnType<typeof watchForStall>,
): Promise<UploadInput> {
  let file: { bytes: Buffer; fileName: string; contentType?: string } | undefined;
  let metaText: string | undefined;
  let legacyLink: string | undefined;
  const form = request.parts({
    limits: {
      fileSize: limits.maxFileBytes,
      files: 1,
      fields: MAX_FIELDS,
      parts: MAX_FIELDS + 1,
      fieldSize: MAX_FIELD_BYTES,
    },
  });
  const parts: Parts = form[Symbol.asyncIterator]();
  for (;;) {
    const next = await watch.race(parts.next());
    if (next.done) break;
    const part = next.value;
    if (part.type === 'file') {
      if (part.fieldname !== 'file') {
        part.file.resume();
        throw HttpError.badRequest(part.fieldname, 'unexpected file field (send it as "file")');
      }
      let bytes: Buffer;
      try {
        bytes = await watch.race(part.toBuffer());
      } catch (error) {
        throw await underlyingError(parts, error);
      }
      file = { bytes, fileName: part.filename, contentType: part.mimetype };
      continue;
    }
    if (part.fieldname !== 'meta_json' && part.fieldname !== 'reference_source_link') continue;
    if (part.valueTruncated) {
      throw new HttpError(
        413,
        'too_large',
        `${part.fieldname}: must be at most ${MAX_FIELD_BYTES} bytes`,
        {
          field: part.fieldname,
        },
      );
    }
    if (part.fieldname === 'meta_json') metaText = String(part.value);
    else legacyLink = String(part.value);
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

/** Reads the upload form of a request; every failure is a 4xx HttpError (or a mapped FST_ one). */
export async function readUploadForm(
  request: FastifyRequest,
  limits: UploadLimits,
): Promise<UploadInput> {
  if (!request.isMultipart()) {
    throw HttpError.badRequest('file', 'is required (send multipart/form-data with a file field)');
  }
  const watch = watchForStall(request, limits.idleTimeoutMs);
  try {
    return await readParts(request, limits, watch);
  } catch (error) {
    throw formError(error);
  } finally {
    watch.stop();
  }
}
