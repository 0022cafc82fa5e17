// The fields of Slack's payloads this app reads, with the types Slack documents for them. A
// correctly signed body whose fields have other types (a number for a user id, an object for a
// message's text) is refused with 400 before any handler sees it: it is not something Slack
// would send, and answering 500 would only make Slack send it again. Unknown fields and unknown
// event types pass: Slack adds fields, and Bolt ignores what no listener asked for.
import { z } from 'zod';

const id = z.string();
const optionalString = z.string().optional();
const idObject = z.looseObject({ id });

/** message and app_mention events: what events.ts and assistant.ts read. */
const messageEvent = z.looseObject({
  type: z.string(),
  subtype: optionalString,
  user: optionalString,
  bot_id: optionalString,
  text: optionalString,
  ts: optionalString,
  thread_ts: optionalString,
  channel: optionalString,
  channel_type: optionalString,
  team: optionalString,
  files: z.array(z.looseObject({})).optional(),
  message: z.looseObject({}).optional(),
  previous_message: z.looseObject({}).optional(),
  assistant_thread: z.looseObject({}).optional(),
});

const anyEvent = z.looseObject({ type: z.string() });

const eventCallback = z.looseObject({
  type: z.literal('event_callback'),
  team_id: optionalString,
  enterprise_id: optionalString.nullable(),
  event_id: optionalString,
  event: anyEvent,
});

const blockActions = z.looseObject({
  type: z.literal('block_actions'),
  user: z.looseObject({ id, team_id: optionalString }),
  team: idObject.nullable().optional(),
  channel: idObject.optional(),
  message: z.looseObject({ ts: optionalString, thread_ts: optionalString }).optional(),
  container: z.looseObject({}).optional(),
  trigger_id: optionalString,
  actions: z.array(
    z.looseObject({
      action_id: id,
      block_id: optionalString,
      value: optionalString,
      type: optionalString,
    }),
  ),
});

const viewSubmission = z.looseObject({
  type: z.enum(['view_submission', 'view_closed']),
  user: z.looseObject({ id, team_id: optionalString }),
  team: idObject.nullable().optional(),
  view: z.looseObject({
    id: optionalString,
    callback_id: z.string(),
    private_metadata: optionalString,
    state: z.looseObject({ values: z.record(z.string(), z.unknown()) }).optional(),
  }),
});

/** A slash command arrives as a form: every field a string. */
const slashCommand = z.looseObject({
  command: z.string(),
  text: optionalString,
  team_id: z.string(),
  user_id: z.string(),
  channel_id: z.string(),
  trigger_id: optionalString,
  response_url: optionalString,
});

const MESSAGE_EVENTS = new Set(['message', 'app_mention']);

/** Why a parsed, signed body is malformed; undefined when it has the shapes this app reads. */
export function malformedReason(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'not an object';
  const record = body as Record<string, unknown>;
  const problem = (result: { success: boolean; error?: z.ZodError }) =>
    result.success ? undefined : (result.error?.issues[0]?.path.join('.') ?? 'body');
  if (typeof record.command === 'string') return problem(slashCommand.safeParse(record));
  switch (record.type) {
    case 'event_callback': {
      const outer = problem(eventCallback.safeParse(record));
      if (outer) return outer;
      const event = record.event as { type: string };
      return MESSAGE_EVENTS.has(event.type)
        ? problem(messageEvent.safeParse(event))?.replace(/^/, 'event.')
        : undefined;
    }
    case 'block_actions':
      return problem(blockActions.safeParse(record));
    case 'view_submission':
    case 'view_closed':
      return problem(viewSubmission.safeParse(record));
    default:
      return undefined;
  }
}
