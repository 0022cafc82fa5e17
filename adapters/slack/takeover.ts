// A replica that died mid-answer leaves its message open: a stream never stopped, or a posted
// message showing part of the answer. The replica taking the answer over ends each one with the
// notice: a stream is stopped with it appended; a message that no longer streams is replaced
// by it (the complete answer follows in a new message). Failures are logged by the engine.
import { errorCode, type SlackApi } from './web.js';
import { slackMarkdown } from './escape.js';

/** Slack's answer to stopping a message that is not streaming (any more, or never was). */
const NOT_STREAMING = new Set(['message_not_in_streaming_state', 'not_in_streaming_state']);

export async function closeInterruptedMessages(
  api: SlackApi,
  place: { workspace: string; channel: string },
  ids: readonly string[],
  notice: string,
): Promise<void> {
  // The notice is ours, but it goes out the way every answer text does.
  const text = slackMarkdown(notice);
  for (const ts of ids) {
    try {
      await api.deliver(place.workspace, 'chat.stopStream', {
        channel: place.channel,
        ts,
        markdown_text: `\n\n${text}`,
      });
    } catch (error) {
      if (!NOT_STREAMING.has(errorCode(error) ?? '')) throw error;
      await api.deliver(place.workspace, 'chat.update', {
        channel: place.channel,
        ts,
        markdown_text: text,
      });
    }
  }
}
