// Downloads a slash-command attachment from Discord's CDN at once (its signed URL expires),
// capped in size while it streams, not only by the size Discord announced.
import { CodedError, ErrorCode } from '../../../src/errors.js';
import type { AdminFile } from '../../../src/admin/types.js';
import { readCapped } from '../../shared/read-capped.js';

export interface AttachmentRef {
  name: string;
  url: string;
  size: number;
  contentType?: string | null;
}

export class AttachmentError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.DiscordAttachmentRefused, message);
    this.name = 'AttachmentError';
  }
}

export type FetchLike = (url: string, init?: { signal?: AbortSignal }) => Promise<Response>;

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(bytes < 1_000_000 ? 2 : 1)} MB`;
}

export async function downloadAttachment(
  attachment: AttachmentRef,
  options: { maxBytes: number; link?: string; fetch?: FetchLike; timeoutMs?: number },
): Promise<AdminFile> {
  const { maxBytes } = options;
  const tooBig = () =>
    new AttachmentError(
      `file: "${attachment.name}" is larger than the upload limit of ${megabytes(maxBytes)}`,
    );
  if (attachment.size > maxBytes) throw tooBig();
  const fetchFn = options.fetch ?? fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  let response: Response;
  try {
    response = await fetchFn(attachment.url, { signal });
  } catch (error) {
    throw new AttachmentError(
      `file: could not download "${attachment.name}" from Discord (${(error as Error).message})`,
    );
  }
  if (!response.ok || !response.body) {
    throw new AttachmentError(
      `file: Discord answered ${response.status} for "${attachment.name}"; attach it again`,
    );
  }
  const bytes = await readCapped(response.body, maxBytes, tooBig);
  return {
    name: attachment.name,
    bytes,
    ...(attachment.contentType ? { contentType: attachment.contentType } : {}),
    ...(options.link ? { link: options.link } : {}),
  };
}
