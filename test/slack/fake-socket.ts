// Slack's side of Socket Mode for the fake (fake-slack.ts serves apps.connections.open and hands
// the WebSocket upgrade here): a hello, events_api envelopes, the app's acks by envelope_id, and
// Slack's redelivery of an envelope never acknowledged (a new envelope, retry_attempt + 1,
// retry_reason "timeout", as Slack sends them: adapters/slack/socket-receiver.ts cites the
// sources). Slack redelivers on its own clock (seconds, then a minute, then five); here the test
// says when, so nothing waits on wall-clock time.
import { WebSocketServer, type WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Args } from './fake-state.js';

interface Sent {
  envelopeId: string;
  payload: Args;
  retryAttempt: number;
}

export class FakeSocketMode {
  readonly acks: Args[] = [];
  /** Every envelope sent, redeliveries included. */
  readonly sent: Sent[] = [];
  private readonly server = new WebSocketServer({ noServer: true });
  private socket?: WebSocket;
  private opened?: () => void;
  private readonly ackWaiters = new Map<string, (ack: Args) => void>();
  private seq = 0;

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  close(): void {
    this.socket?.terminate();
    this.server.close();
  }

  private accept(ws: WebSocket): void {
    this.socket = ws;
    ws.on('message', (data) => {
      const ack = JSON.parse(String(data)) as Args;
      this.acks.push(ack);
      const id = String(ack.envelope_id);
      this.ackWaiters.get(id)?.(ack);
      this.ackWaiters.delete(id);
    });
    ws.send(
      JSON.stringify({ type: 'hello', num_connections: 1, connection_info: { app_id: 'A1' } }),
    );
    this.opened?.();
  }

  /** Resolves once the app connected. */
  connected(): Promise<void> {
    if (this.socket) return Promise.resolve();
    return new Promise((resolve) => (this.opened = resolve));
  }

  /** Sends an envelope with the payload; `acked` resolves with the app's ack, if it ever comes. */
  deliver(payload: Args, envelopeId = `env-${++this.seq}`, retryAttempt = 0): Delivery {
    const acked = new Promise<Args>((resolve) => this.ackWaiters.set(envelopeId, resolve));
    this.sent.push({ envelopeId, payload, retryAttempt });
    this.socket?.send(
      JSON.stringify({
        envelope_id: envelopeId,
        type: envelopeType(payload),
        payload,
        accepts_response_payload: false,
        retry_attempt: retryAttempt,
        retry_reason: retryAttempt === 0 ? '' : 'timeout',
      }),
    );
    return { envelopeId, acked };
  }

  /** Whether the envelope was acknowledged. */
  isAcked(envelopeId: string): boolean {
    return this.acks.some((ack) => ack.envelope_id === envelopeId);
  }

  /** Slack's retry of an envelope left unacknowledged: the same payload, in a new envelope. */
  redeliver(previous: Delivery): Delivery {
    const sent = this.sent.find((s) => s.envelopeId === previous.envelopeId);
    if (!sent) throw new Error(`no envelope ${previous.envelopeId} was sent`);
    if (this.isAcked(sent.envelopeId)) throw new Error('Slack does not redeliver an acked one');
    return this.deliver(sent.payload, `env-${++this.seq}`, sent.retryAttempt + 1);
  }
}

/** Socket Mode's envelope types: the Events API, slash commands, everything interactive. */
function envelopeType(payload: Args): string {
  if (payload.type === 'event_callback') return 'events_api';
  return typeof payload.command === 'string' ? 'slash_commands' : 'interactive';
}

export interface Delivery {
  envelopeId: string;
  acked: Promise<Args>;
}
