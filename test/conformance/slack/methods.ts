// The arguments of each Slack Web API method the bridge calls, as @slack/web-api declares them (through Bolt's webApi):
// a zod schema per method (types checked at run time, unknown arguments refused), and a check
// at compile time that every argument a schema allows is one the method's `…Arguments` type of
// @slack/web-api has. Values arrive as the fake parsed them: a form's scalars are strings.
import type { webApi } from '@slack/bolt';
import { z } from 'zod';

const str = z.string().min(1);
const ts = z.string().regex(/^\d+\.\d+$/, 'a Slack timestamp');
const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]);
const int = z.union([z.number().int(), z.string().regex(/^\d+$/)]);
const blocks = z.array(z.looseObject({ type: z.string() }));

const channel = { channel: str };
const message = {
  text: z.string().optional(),
  blocks: blocks.optional(),
  markdown_text: z.string().optional(),
  thread_ts: ts.optional(),
  unfurl_links: bool.optional(),
  unfurl_media: bool.optional(),
  mrkdwn: bool.optional(),
};

export const METHOD_ARGS = {
  'chat.postMessage': z.strictObject({ ...channel, ...message }),
  'chat.update': z.strictObject({
    ...channel,
    ts,
    text: message.text,
    blocks: message.blocks,
    markdown_text: message.markdown_text,
  }),
  'chat.postEphemeral': z.strictObject({
    ...channel,
    user: str,
    text: message.text,
    blocks: message.blocks,
    thread_ts: message.thread_ts,
  }),
  'chat.startStream': z.strictObject({
    ...channel,
    thread_ts: ts,
    markdown_text: z.string().optional(),
    recipient_user_id: str.optional(),
    recipient_team_id: str.optional(),
  }),
  'chat.appendStream': z.strictObject({ ...channel, ts, markdown_text: z.string().min(1) }),
  'chat.stopStream': z.strictObject({
    ...channel,
    ts,
    markdown_text: z.string().optional(),
    blocks: blocks.optional(),
  }),
  'assistant.threads.setStatus': z.strictObject({
    channel_id: str,
    thread_ts: ts,
    status: z.string(),
    loading_messages: z.array(z.string()).optional(),
  }),
  'assistant.threads.setSuggestedPrompts': z.strictObject({
    channel_id: str,
    thread_ts: ts,
    title: z.string().optional(),
    prompts: z
      .array(z.strictObject({ title: str, message: str }))
      .min(1)
      .max(4),
  }),
  'assistant.threads.setTitle': z.strictObject({ channel_id: str, thread_ts: ts, title: str }),
  'reactions.add': z.strictObject({ ...channel, name: str, timestamp: ts }),
  'reactions.remove': z.strictObject({ ...channel, name: str, timestamp: ts }),
  'users.info': z.strictObject({ user: str, include_locale: bool.optional() }),
  'conversations.info': z.strictObject({ ...channel, include_locale: bool.optional() }),
  'conversations.replies': z.strictObject({
    ...channel,
    ts,
    latest: ts.optional(),
    oldest: ts.optional(),
    inclusive: bool.optional(),
    limit: int.optional(),
    cursor: z.string().optional(),
  }),
  'conversations.open': z.strictObject({ users: str, return_im: bool.optional() }),
  'views.open': z.strictObject({ trigger_id: str, view: z.looseObject({ type: z.string() }) }),
  'files.getUploadURLExternal': z.strictObject({ filename: str, length: int }),
  'files.completeUploadExternal': z.strictObject({
    files: z.array(z.strictObject({ id: str, title: z.string().optional() })).min(1),
    channel_id: str.optional(),
    thread_ts: ts.optional(),
    initial_comment: z.string().optional(),
  }),
} as const;

export type SlackMethod = keyof typeof METHOD_ARGS;

/** Methods called with no arguments of the bridge's own (the client's token only). */
export const NO_ARGS = new Set(['auth.test', 'apps.connections.open', 'oauth.v2.access']);

// ---- compile-time: each schema's arguments exist in @slack/web-api's type for the method ----
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type Methods = typeof METHOD_ARGS;
/** Every argument name a schema allows that @slack/web-api does not declare for its method. */
type Undeclared = {
  [M in keyof Methods]: Exclude<keyof z.infer<Methods[M]>, KeysOfUnion<ArgumentsOf[M]>>;
}[keyof Methods];
// Fails to compile, naming the argument, if any schema allows an undeclared argument.
export const ALL_DECLARED: [Undeclared] extends [never] ? true : Undeclared = true;
interface ArgumentsOf {
  'chat.postMessage': webApi.ChatPostMessageArguments;
  'chat.update': webApi.ChatUpdateArguments;
  'chat.postEphemeral': webApi.ChatPostEphemeralArguments;
  'chat.startStream': webApi.ChatStartStreamArguments;
  'chat.appendStream': webApi.ChatAppendStreamArguments;
  'chat.stopStream': webApi.ChatStopStreamArguments;
  'assistant.threads.setStatus': webApi.AssistantThreadsSetStatusArguments;
  'assistant.threads.setSuggestedPrompts': webApi.AssistantThreadsSetSuggestedPromptsArguments;
  'assistant.threads.setTitle': webApi.AssistantThreadsSetTitleArguments;
  'reactions.add': webApi.ReactionsAddArguments;
  'reactions.remove': webApi.ReactionsRemoveArguments;
  'users.info': webApi.UsersInfoArguments;
  'conversations.info': webApi.ConversationsInfoArguments;
  'conversations.replies': webApi.ConversationsRepliesArguments;
  'conversations.open': webApi.ConversationsOpenArguments;
  'views.open': webApi.ViewsOpenArguments;
  'files.getUploadURLExternal': webApi.FilesGetUploadURLExternalArguments;
  'files.completeUploadExternal': webApi.FilesCompleteUploadExternalArguments;
}
