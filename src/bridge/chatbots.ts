// The chatbots' settings the engine reads after an answer (show_citations, rate_limit_message),
// from listChatbots, cached briefly: one call serves every conversation finishing meanwhile.
import type { ServiceClient } from '../service/api.js';
import type { Chatbot } from '../service/types.js';
import type { Clock } from './clock.js';

export class ChatbotDirectory {
  private cached: { at: number; byUuid: Map<string, Chatbot>; list: Chatbot[] } | undefined;
  private loading: Promise<Chatbot[]> | undefined;

  constructor(
    private readonly client: ServiceClient,
    private readonly clock: Clock,
    private readonly ttlMs = 30_000,
  ) {}

  /** The chatbot with this uuid, or undefined when unknown. Rejects when the list fails. */
  async get(uuid: string): Promise<Chatbot | undefined> {
    const cached = await this.load(false);
    const found = cached.byUuid.get(uuid);
    // A chatbot created after the list was cached: look once more (not for a list just read).
    if (found || this.clock.now() - cached.at < 2_000) return found;
    return (await this.load(true)).byUuid.get(uuid);
  }

  /** A chatbot named by uuid or by name (for the configured default). */
  async resolve(uuidOrName: string): Promise<string | undefined> {
    const { byUuid, list } = await this.load(false);
    if (byUuid.has(uuidOrName)) return uuidOrName;
    return list.find((c) => c.name === uuidOrName)?.uuid;
  }

  private async load(force: boolean) {
    const fresh = this.cached && this.clock.now() - this.cached.at < this.ttlMs;
    if (this.cached && fresh && !force) return this.cached;
    this.loading ??= this.client.listChatbots().finally(() => {
      this.loading = undefined;
    });
    const list = await this.loading;
    this.cached = { at: this.clock.now(), byUuid: new Map(list.map((c) => [c.uuid, c])), list };
    return this.cached;
  }
}
