// Bolt's Socket Mode receiver, made to keep before it acknowledges, as the HTTP receiver does
// with processBeforeResponse (receiver.ts). Bolt's App acknowledges an Events API envelope
// before any listener runs (App.processEvent calls ack() first for every event but
// function_executed), and Bolt's SocketModeReceiver sends that ack at once: an event arriving
// while the store is down was acknowledged and then lost. Here the App gets an ack that only
// remembers the call; it goes over the socket once processEvent has resolved, i.e. once the
// listener has kept the event (or found it none to answer). When the listener fails (the store
// is down: IntakeUnavailableError; the process is stopping: ShuttingDownError), processEvent
// rejects, processEventErrorHandler says "no ack", and Slack delivers the envelope again.
//
// Slack's redelivery of an unacknowledged envelope (the source: Slack's Socket Mode guide,
// api.slack.com/apis/connections/socket-implement#acknowledge, asks for the envelope_id back
// within 3 seconds; the Events API's failure conditions, api.slack.com/apis/connections/
// events-api, retry a delivery that was not acknowledged, as Slack's platform team cited both in
// slackapi/python-slack-sdk#1280): the same payload comes again in a new envelope with
// `retry_attempt` 1, 2, 3 and `retry_reason` "timeout" (logs in slackapi/bolt-js#2487 and
// slackapi/python-slack-events-api#93; @slack/socket-mode hands them to Bolt as retry_num /
// retry_reason), about at once, after a minute and after five minutes (vercel/chat#666), to
// whichever of the app's connections is open, also for events that arrived while none was.
// So a store that is back within about five minutes loses nothing; the intake's key per message
// (events.ts, DEDUP_TTL_MS = 15 min) makes every later copy a duplicate.
//
// Interactive payloads (slash commands, buttons, views) are acknowledged by their listeners as
// before: their ack goes out at once, since Slack shows the person an error after 3 seconds.
import {
  ErrorCode,
  SocketModeReceiver,
  type App,
  type ReceiverEvent,
  type SocketModeReceiverOptions,
} from '@slack/bolt';
import type { Logger } from '../../src/log.js';

export interface KeepFirstSocketOptions extends Pick<
  SocketModeReceiverOptions,
  'appToken' | 'logger' | 'installerOptions' | 'dispatcher'
> {
  /** Our logger (the receiver's own `logger` is Bolt's adapter of it). */
  log: Logger;
}

/** Bolt's Socket Mode receiver whose Events API acks wait for the listeners (see above). */
export class KeepFirstSocketReceiver extends SocketModeReceiver {
  constructor(options: KeepFirstSocketOptions) {
    const { log, ...receiverOptions } = options;
    super({
      ...receiverOptions,
      // Reached when processEvent rejected: the event was not kept, so no ack.
      processEventErrorHandler: async ({ error, event }) => {
        const authorization = (error as { code?: unknown }).code === ErrorCode.AuthorizationError;
        log.warn(
          { err: error, type: event.body.type, retryNum: event.retryNum },
          authorization
            ? 'slack: envelope refused (no installation), acknowledged'
            : 'slack: envelope not kept, not acknowledged: Slack delivers it again',
        );
        // As Bolt's default: without an installation a redelivery cannot go better.
        return authorization;
      },
    });
  }

  override init(app: App): void {
    // The receiver calls nothing of the App but processEvent: it gets the App with that wrapped.
    const deferring = Object.create(app) as App;
    deferring.processEvent = (event) => processThenAck(app, event);
    super.init(deferring);
  }
}

/** Runs the event through the App; an Events API ack goes out only once that resolved. */
async function processThenAck(app: App, event: ReceiverEvent): Promise<void> {
  if (event.body.type !== 'event_callback') return app.processEvent(event);
  let response: { body: unknown } | undefined;
  await app.processEvent({
    ...event,
    ack: async (body?: unknown) => {
      response ??= { body };
    },
  });
  if (response) await event.ack(response.body);
}
