// The fake's gateway: hello, heartbeat acks, identify → READY + GUILD_CREATE, resume → replay,
// and dispatches to every identified connection. Plain JSON frames (no compression).
import { WebSocketServer, type WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { snowflake } from './payloads.js';

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

export interface GatewayHooks {
  ready(): unknown;
  guilds(): unknown[];
  onIdentify(intents: number): void;
  /** A close code and reason to refuse this identify with (Discord's 4014 for intents). */
  refuseIdentify?(intents: number): { code: number; reason: string } | undefined;
}

export class FakeGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  private readonly log: Dispatch[] = [];
  private seq = 0;
  readonly sessionId = snowflake();
  /** Events sent while no connection was identified wait here. */
  private pending: Dispatch[] = [];
  identifies = 0;
  /** Identifies closed with a refusal (disallowed intents). */
  refusals = 0;
  resumes = 0;
  /** On resume, also re-send this many events the client already had (duplicate delivery). */
  resumeOverlap = 0;

  constructor(private readonly hooks: GatewayHooks) {}

  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private send(ws: WebSocket, payload: unknown): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(payload));
  }

  private accept(ws: WebSocket): void {
    this.send(ws, { op: 10, d: { heartbeat_interval: 41_250 }, s: null, t: null });
    ws.on('message', (raw) => {
      const packet = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> };
      if (packet.op === 1) this.send(ws, { op: 11, d: null, s: null, t: null });
      else if (packet.op === 2) this.identify(ws, packet.d);
      else if (packet.op === 6) this.resume(ws, Number(packet.d.seq ?? 0));
    });
    ws.on('close', () => this.sockets.delete(ws));
  }

  private identify(ws: WebSocket, data: Record<string, unknown>): void {
    this.identifies += 1;
    const intents = Number(data.intents ?? 0);
    this.hooks.onIdentify(intents);
    const refusal = this.hooks.refuseIdentify?.(intents);
    if (refusal) {
      this.refusals += 1;
      ws.close(refusal.code, refusal.reason);
      return;
    }
    // READY and the guilds go to this connection only: another one (a second replica of the
    // bot) is already set up and must not be told again.
    const hello = [
      { t: 'READY', d: this.hooks.ready() },
      ...this.hooks.guilds().map((guild) => ({ t: 'GUILD_CREATE', d: guild })),
    ];
    for (const { t, d } of hello) {
      this.send(ws, { op: 0, s: ++this.seq, t, d });
    }
    this.sockets.add(ws);
    this.flushPending();
  }

  private flushPending(): void {
    const waiting = this.pending;
    this.pending = [];
    for (const event of waiting) this.dispatch(event.t, event.d);
  }

  private resume(ws: WebSocket, seq: number): void {
    this.resumes += 1;
    this.sockets.add(ws);
    // Replays what the client missed, as Discord does after a resume.
    for (const event of this.log.filter((e) => e.s > seq - this.resumeOverlap)) {
      this.send(ws, { op: 0, ...event });
    }
    this.dispatch('RESUMED', {});
    this.flushPending();
  }

  dispatch(t: string, d: unknown): void {
    if (this.sockets.size === 0 && t !== 'READY' && t !== 'GUILD_CREATE') {
      this.pending.push({ s: 0, t, d });
      return;
    }
    const event = { s: ++this.seq, t, d };
    this.log.push(event);
    for (const ws of this.sockets) this.send(ws, { op: 0, ...event });
  }

  /** Closes every connection with this code (4014: an intent was switched off meanwhile). */
  closeConnections(code: number, reason: string): void {
    for (const ws of this.sockets) ws.close(code, reason);
    this.sockets.clear();
  }

  /** Drops every connection with a resumable close code; discord.js reconnects and resumes. */
  dropConnections(): void {
    for (const ws of this.sockets) ws.close(4000, 'fake: unknown error');
    this.sockets.clear();
  }

  close(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
