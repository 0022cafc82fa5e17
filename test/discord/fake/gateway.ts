// The fake's gateway: hello, heartbeat acks, identify → READY + GUILD_CREATE, resume → replay,
// and dispatches to every identified connection of the event's shard, by Discord's rules: a
// server's events go to shard (guild_id >> 22) % shard_count, DMs to shard 0 only. Several
// connections on one shard (replicas) all get its events. Plain JSON frames (no compression).
import { WebSocketServer, type WebSocket } from 'ws';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { snowflake } from './payloads.js';

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

/** [shard id, shard count] as IDENTIFY carries it. */
export type ShardPair = [id: number, count: number];

/** The shard Discord sends an event of this server to; DMs (no server) go to shard 0. */
export function shardOf(guildId: string | undefined, count: number): number {
  if (guildId === undefined) return 0;
  return Number((BigInt(guildId) >> 22n) % BigInt(count));
}

/** The server an event belongs to (GUILD_CREATE is the guild itself). */
function guildOf(t: string, d: unknown): string | undefined {
  const data = (d ?? {}) as { guild_id?: string; id?: string };
  if (t === 'GUILD_CREATE') return data.id;
  return data.guild_id ?? undefined;
}

export interface Delivery {
  shard: ShardPair;
  t: string;
  /** The event's own id (a message's, a channel's, an interaction's). */
  id?: string;
}

interface Connection {
  shard: ShardPair;
  sessionId: string;
}

export interface GatewayHooks {
  ready(sessionId: string, shard: ShardPair): unknown;
  /** GUILD_CREATE payloads of every server; each connection is sent those of its shard. */
  guilds(): { id: string }[];
  onIdentify(intents: number): void;
  /** A close code and reason to refuse this identify with (Discord's 4014 for intents). */
  refuseIdentify?(intents: number): { code: number; reason: string } | undefined;
}

export class FakeGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Map<WebSocket, Connection>();
  /** Every session ever identified, for resumes. */
  private readonly sessions = new Map<string, ShardPair>();
  private readonly log: Dispatch[] = [];
  private seq = 0;
  /** The shard of every IDENTIFY, in order. */
  readonly identified: ShardPair[] = [];
  /** Every dispatch sent, with the shard of the connection it went to. */
  readonly deliveries: Delivery[] = [];
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
      else if (packet.op === 6)
        this.resume(ws, String(packet.d.session_id), Number(packet.d.seq ?? 0));
    });
    ws.on('close', () => this.sockets.delete(ws));
  }

  private identify(ws: WebSocket, data: Record<string, unknown>): void {
    this.identifies += 1;
    const intents = Number(data.intents ?? 0);
    const [id, count] = Array.isArray(data.shard) ? (data.shard as number[]) : [0, 1];
    const shard: ShardPair = [Number(id), Number(count)];
    this.identified.push(shard);
    this.hooks.onIdentify(intents);
    if (!Number.isInteger(shard[1]) || shard[1] < 1 || !(shard[0] >= 0 && shard[0] < shard[1])) {
      ws.close(4010, 'Invalid shard.');
      return;
    }
    const refusal = this.hooks.refuseIdentify?.(intents);
    if (refusal) {
      this.refusals += 1;
      ws.close(refusal.code, refusal.reason);
      return;
    }
    const sessionId = snowflake();
    this.sessions.set(sessionId, shard);
    // READY and the guilds go to this connection only: another one (a second replica of the
    // bot) is already set up and must not be told again. Only the servers of its shard.
    const guilds = this.hooks.guilds().filter((g) => shardOf(g.id, shard[1]) === shard[0]);
    const hello = [
      { t: 'READY', d: this.hooks.ready(sessionId, shard) },
      ...guilds.map((guild) => ({ t: 'GUILD_CREATE', d: guild })),
    ];
    for (const { t, d } of hello) {
      this.send(ws, { op: 0, s: ++this.seq, t, d });
    }
    this.sockets.set(ws, { shard, sessionId });
    this.flushPending();
  }

  /** Whether this connection gets this event (its shard's, by Discord's rule). */
  private receives(connection: Connection, t: string, d: unknown): boolean {
    const [id, count] = connection.shard;
    return shardOf(guildOf(t, d), count) === id;
  }

  private flushPending(): void {
    const waiting = this.pending;
    this.pending = [];
    for (const event of waiting) this.dispatch(event.t, event.d);
  }

  private resume(ws: WebSocket, sessionId: string, seq: number): void {
    this.resumes += 1;
    const connection = { shard: this.sessions.get(sessionId) ?? [0, 1], sessionId };
    this.sockets.set(ws, connection);
    // Replays what the client missed (of its shard), as Discord does after a resume.
    for (const event of this.log.filter((e) => e.s > seq - this.resumeOverlap)) {
      if (this.receives(connection, event.t, event.d)) this.send(ws, { op: 0, ...event });
    }
    this.send(ws, { op: 0, s: ++this.seq, t: 'RESUMED', d: {} });
    this.flushPending();
  }

  dispatch(t: string, d: unknown): void {
    const to = [...this.sockets].filter(([, connection]) => this.receives(connection, t, d));
    if (to.length === 0 && t !== 'READY' && t !== 'GUILD_CREATE') {
      // No connection holds the event's shard yet: it waits for one.
      this.pending.push({ s: 0, t, d });
      return;
    }
    const event = { s: ++this.seq, t, d };
    this.log.push(event);
    const id = (d as { id?: unknown } | null)?.id;
    for (const [ws, { shard }] of to) {
      this.deliveries.push({ shard, t, ...(typeof id === 'string' ? { id } : {}) });
      this.send(ws, { op: 0, ...event });
    }
  }

  /** The shards a dispatch of this event id (a message's) went to, as "id/count". */
  shardsThatGot(t: string, id: string): string[] {
    return this.deliveries
      .filter((delivery) => delivery.t === t && delivery.id === id)
      .map(({ shard }) => `${shard[0]}/${shard[1]}`);
  }

  /** Closes every connection with this code (4014: an intent was switched off meanwhile). */
  closeConnections(code: number, reason: string): void {
    for (const ws of this.sockets.keys()) ws.close(code, reason);
    this.sockets.clear();
  }

  /**
   * Drops every connection (or those of one shard id) with a resumable close code; discord.js
   * reconnects and resumes.
   */
  dropConnections(shardId?: number): void {
    for (const [ws, { shard }] of this.sockets) {
      if (shardId !== undefined && shard[0] !== shardId) continue;
      ws.close(4000, 'fake: unknown error');
      this.sockets.delete(ws);
    }
  }

  close(): void {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
  }
}
