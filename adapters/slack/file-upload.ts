// Files an admin command made (a feedback export) go to the admin's DM with the app, through
// Slack's upload flow: files.getUploadURLExternal, the bytes POSTed to the URL it gives, then
// files.completeUploadExternal into the DM (conversations.open). A slash command's answer is
// ephemeral and cannot carry a file, and a file shared in the channel would show everyone.
import type { AdminOutput, FileBlock } from '../../src/admin/index.js';
import type { Logger } from '../../src/log.js';
import type { SlackApi } from './web.js';
import type { FetchLike } from '../shared/outbound.js';

const UPLOAD_TIMEOUT_MS = 60_000;

/** Where the calls go: the paced Web API, and the fetch the upload's bytes go through. */
export interface UploadDeps {
  api: SlackApi;
  logger: Logger;
  /** The proxied fetch when the proxy variables are set; the global one else. */
  fetch?: FetchLike;
}

async function uploadToUser(
  { api, fetch: send = fetch }: UploadDeps,
  workspace: string,
  userId: string,
  file: FileBlock,
): Promise<void> {
  const opened = (await api.deliver(workspace, 'conversations.open', { users: userId })) as {
    channel?: { id?: string };
  };
  const channel = opened.channel?.id;
  if (!channel) throw new Error('conversations.open gave no channel');
  const target = (await api.deliver(workspace, 'files.getUploadURLExternal', {
    filename: file.name,
    length: file.bytes.length,
  })) as { upload_url?: string; file_id?: string };
  if (!target.upload_url || !target.file_id) {
    throw new Error('files.getUploadURLExternal gave no upload_url or file_id');
  }
  const sent = await send(target.upload_url, {
    method: 'POST',
    body: file.bytes,
    headers: { 'content-type': file.contentType },
    // An upload that stalls (a hung proxy or host) ends as an error, told to the admin.
    signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
  });
  if (!sent.ok) throw new Error(`the file upload answered HTTP ${sent.status}`);
  await api.deliver(workspace, 'files.completeUploadExternal', {
    files: [{ id: target.file_id, title: file.name }],
    channel_id: channel,
  });
}

/** Uploads the output's files to the user's DM; each file block becomes a line saying where. */
export async function deliverFiles(
  deps: UploadDeps,
  workspace: string,
  userId: string,
  output: AdminOutput[],
): Promise<AdminOutput[]> {
  if (!output.some((block) => block.kind === 'file')) return output;
  const out: AdminOutput[] = [];
  for (const block of output) {
    if (block.kind !== 'file') {
      out.push(block);
      continue;
    }
    try {
      await uploadToUser(deps, workspace, userId, block);
      out.push({ kind: 'notice', tone: 'info', text: `${block.name} is in your DM with the app.` });
    } catch (error) {
      deps.logger.warn({ err: error }, 'slack: could not upload an admin file');
      out.push({
        kind: 'notice',
        tone: 'error',
        text:
          `Could not send ${block.name} to your DM (${(error as Error).message}). ` +
          'The app needs the files:write and im:write scopes: paste the manifest again and reinstall.',
      });
    }
  }
  return out;
}
