// The local service's records in SQLite (tables in db/schema.ts, rows in rows.ts). Every change
// that touches several rows runs in one IMMEDIATE transaction, so several processes on one
// file never see half of it and never lose one another's writes. Data sources and their
// chunks are in sources.ts; this file holds chatbots, agents, tags, sessions and messages.
import type { ServiceDb } from './db/open.js';
import type {
  AgentRecord,
  ChatbotRecord,
  SessionRecord,
  SourceRecord,
  SourceTagRecord,
} from './records.js';
import {
  type AgentRow,
  type ChatbotRow,
  type MessageRow,
  type SessionRow,
  type StoredMessage,
  type TagRow,
  agentRecord,
  chatbotRecord,
  messageWire,
  sessionRecord,
  tagRecord,
} from './rows.js';
import { SourceStore } from './sources.js';
import { inTransaction, prepareNamed } from '../sqlite.js';

const AGENT_COLUMNS = `a.id, a.uuid, c.uuid AS chatbot_uuid, c.owner, a.name, a.description,
  a.prompt, a.type, a.enabled, a.meta_json, a.human_escalation_json, a.tool_functions_json,
  a.variables_json, a.created_at, a.modified_at`;
const TAG_COLUMNS = `t.id, t.uuid, c.uuid AS chatbot_uuid, c.owner, t.name, t.color,
  t.created_at, t.modified_at`;
const SESSION_COLUMNS = `s.id, s.uuid, c.uuid AS chatbot_uuid, c.owner,
  s.initial_variables_json, s.last_agent_uuid, s.created_at, s.modified_at`;

type Member = { owner_id: number; uuid: string };

/** Groups member uuids by their owner's id, in stored order. */
function membersBy(rows: Member[]): Map<number, string[]> {
  const map = new Map<number, string[]>();
  for (const row of rows) {
    const list = map.get(row.owner_id);
    if (list) list.push(row.uuid);
    else map.set(row.owner_id, [row.uuid]);
  }
  return map;
}

function prepare(db: ServiceDb) {
  return {
    insertChatbot: prepareNamed(
      db,
      `INSERT INTO chatbots (uuid, owner, name, visibility, rate_limit_count, rate_limit_seconds,
         rate_limit_message, show_citations, created_at, modified_at)
       VALUES (@uuid, @owner, @name, @visibility, @count, @seconds, @message, @citations,
         @created_at, @modified_at)`,
    ),
    chatbot: db.prepare<[string], ChatbotRow>('SELECT * FROM chatbots WHERE uuid = ?'),
    chatbotsOf: db.prepare<[string], ChatbotRow>(
      'SELECT * FROM chatbots WHERE owner = ? ORDER BY id',
    ),
    chatbotId: db.prepare<[string], { id: number }>('SELECT id FROM chatbots WHERE uuid = ?'),

    insertAgent: prepareNamed(
      db,
      `INSERT INTO agents (uuid, chatbot_id, name, description, prompt, type, enabled, meta_json,
         human_escalation_json, tool_functions_json, variables_json, created_at, modified_at)
       VALUES (@uuid, @chatbot_id, @name, @description, @prompt, @type, @enabled, @meta_json,
         @human_escalation_json, @tool_functions_json, @variables_json, @created_at, @modified_at)`,
    ),
    updateAgent: prepareNamed(
      db,
      `UPDATE agents SET name = @name, description = @description, prompt = @prompt,
         enabled = @enabled, meta_json = @meta_json, human_escalation_json = @human_escalation_json,
         tool_functions_json = @tool_functions_json, variables_json = @variables_json,
         modified_at = @modified_at
       WHERE id = @id`,
    ),
    agent: db.prepare<[string], AgentRow>(
      `SELECT ${AGENT_COLUMNS} FROM agents a JOIN chatbots c ON c.id = a.chatbot_id
       WHERE a.uuid = ?`,
    ),
    agentsOf: db.prepare<[string], AgentRow>(
      `SELECT ${AGENT_COLUMNS} FROM agents a JOIN chatbots c ON c.id = a.chatbot_id
       WHERE c.uuid = ? ORDER BY a.id`,
    ),
    agentSources: db.prepare<[string], Member>(
      `SELECT m.agent_id AS owner_id, s.uuid FROM agent_sources m
       JOIN agents a ON a.id = m.agent_id JOIN chatbots c ON c.id = a.chatbot_id
       JOIN sources s ON s.id = m.source_id
       WHERE c.uuid = ? ORDER BY m.agent_id, m.position`,
    ),
    agentSourcesOf: db.prepare<[number], Member>(
      `SELECT m.agent_id AS owner_id, s.uuid FROM agent_sources m
       JOIN sources s ON s.id = m.source_id WHERE m.agent_id = ? ORDER BY m.position`,
    ),
    clearAgentSources: db.prepare<[number]>('DELETE FROM agent_sources WHERE agent_id = ?'),
    addAgentSource: db.prepare<[number, number, string]>(
      `INSERT INTO agent_sources (agent_id, position, source_id)
       SELECT ?, ?, id FROM sources WHERE uuid = ?`,
    ),

    insertTag: prepareNamed(
      db,
      `INSERT INTO source_tags (uuid, chatbot_id, name, color, created_at, modified_at)
       VALUES (@uuid, @chatbot_id, @name, @color, @created_at, @modified_at)`,
    ),
    updateTag: prepareNamed(
      db,
      'UPDATE source_tags SET name = @name, color = @color, modified_at = @modified_at WHERE id = @id',
    ),
    tag: db.prepare<[string], TagRow>(
      `SELECT ${TAG_COLUMNS} FROM source_tags t JOIN chatbots c ON c.id = t.chatbot_id
       WHERE t.uuid = ?`,
    ),
    tagsOf: db.prepare<[string], TagRow>(
      `SELECT ${TAG_COLUMNS} FROM source_tags t JOIN chatbots c ON c.id = t.chatbot_id
       WHERE c.uuid = ? ORDER BY t.id`,
    ),
    tagMembers: db.prepare<[string], Member>(
      `SELECT m.tag_id AS owner_id, s.uuid FROM source_tag_members m
       JOIN source_tags t ON t.id = m.tag_id JOIN chatbots c ON c.id = t.chatbot_id
       JOIN sources s ON s.id = m.source_id
       WHERE c.uuid = ? ORDER BY m.tag_id, m.position`,
    ),
    tagMembersOf: db.prepare<[number], Member>(
      `SELECT m.tag_id AS owner_id, s.uuid FROM source_tag_members m
       JOIN sources s ON s.id = m.source_id WHERE m.tag_id = ? ORDER BY m.position`,
    ),
    clearTagMembers: db.prepare<[number]>('DELETE FROM source_tag_members WHERE tag_id = ?'),
    addTagMember: db.prepare<[number, number, string]>(
      `INSERT INTO source_tag_members (tag_id, position, source_id)
       SELECT ?, ?, id FROM sources WHERE uuid = ?`,
    ),

    insertSession: prepareNamed(
      db,
      `INSERT INTO sessions (uuid, chatbot_id, initial_variables_json, last_agent_uuid,
         created_at, modified_at)
       VALUES (@uuid, @chatbot_id, @initial_variables_json, @last_agent_uuid, @created_at,
         @modified_at)`,
    ),
    updateSession: db.prepare<[string | null, string, string]>(
      `UPDATE sessions SET last_agent_uuid = coalesce(?, last_agent_uuid), modified_at = ?
       WHERE uuid = ?`,
    ),
    session: db.prepare<[string], SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions s JOIN chatbots c ON c.id = s.chatbot_id
       WHERE s.uuid = ?`,
    ),
    insertMessage: prepareNamed(
      db,
      `INSERT INTO messages (uuid, session_id, query, response, cite_data_json, finish_reason,
         meta_json, error_message, created_at, modified_at)
       SELECT @uuid, id, @query, @response, @cite_data_json, @finish_reason, @meta_json,
         @error_message, @created_at, @modified_at
       FROM sessions WHERE uuid = @session_uuid`,
    ),
    messages: db.prepare<[string], MessageRow>(
      `SELECT m.uuid, m.query, m.response, m.cite_data_json, m.finish_reason, m.meta_json,
         m.error_message, m.created_at, m.modified_at
       FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.uuid = ? ORDER BY m.id`,
    ),
    lastMessages: db.prepare<[string, number], MessageRow>(
      `SELECT * FROM (
         SELECT m.id, m.uuid, m.query, m.response, m.cite_data_json, m.finish_reason,
           m.meta_json, m.error_message, m.created_at, m.modified_at
         FROM messages m JOIN sessions s ON s.id = m.session_id
         WHERE s.uuid = ? ORDER BY m.id DESC LIMIT ?)
       ORDER BY id`,
    ),
  };
}

export class Repository {
  private readonly q: ReturnType<typeof prepare>;
  /** Data sources and their chunks. */
  readonly sources: SourceStore;

  constructor(private readonly db: ServiceDb) {
    this.q = prepare(db);
    this.sources = new SourceStore(db);
  }

  private chatbotId(uuid: string): number {
    const row = this.q.chatbotId.get(uuid);
    if (row === undefined) throw new Error(`no chatbot ${uuid}`);
    return row.id;
  }

  // ---- chatbots ----
  /** The chatbot and its first agents, together. */
  async createChatbot(record: ChatbotRecord, agents: AgentRecord[] = []): Promise<void> {
    inTransaction(this.db, () => {
      this.q.insertChatbot.run({
        uuid: record.uuid,
        owner: record.owner,
        name: record.name,
        visibility: record.meta.visibility,
        count: record.meta.rate_limit[0],
        seconds: record.meta.rate_limit[1],
        message: record.meta.rate_limit_message,
        citations: record.meta.show_citations ? 1 : 0,
        created_at: record.created_at,
        modified_at: record.modified_at,
      });
      for (const agent of agents) this.insertAgent(agent);
    });
  }
  async getChatbot(uuid: string): Promise<ChatbotRecord | undefined> {
    const row = this.q.chatbot.get(uuid);
    return row && chatbotRecord(row);
  }
  async listChatbots(owner: string): Promise<ChatbotRecord[]> {
    return this.q.chatbotsOf.all(owner).map(chatbotRecord);
  }

  // ---- agents ----
  private agentColumns(record: AgentRecord) {
    return {
      name: record.name,
      description: record.description,
      prompt: record.prompt,
      enabled: record.enabled ? 1 : 0,
      meta_json: JSON.stringify(record.meta),
      human_escalation_json:
        record.human_escalation_settings === undefined
          ? null
          : JSON.stringify(record.human_escalation_settings),
      tool_functions_json: JSON.stringify(record.tool_functions),
      variables_json: JSON.stringify(record.variables),
      modified_at: record.modified_at,
    };
  }

  private setAgentSources(agentId: number, uuids: string[]): void {
    this.q.clearAgentSources.run(agentId);
    uuids.forEach((uuid, position) => this.q.addAgentSource.run(agentId, position, uuid));
  }

  private insertAgent(record: AgentRecord): void {
    const { lastInsertRowid } = this.q.insertAgent.run({
      ...this.agentColumns(record),
      uuid: record.uuid,
      chatbot_id: this.chatbotId(record.chatbotUuid),
      type: record.type,
      created_at: record.created_at,
    });
    this.setAgentSources(Number(lastInsertRowid), record.data_source_uuids);
  }

  /** An agent row with its data sources, as the interface shows it. */
  private agentOf(row: AgentRow): AgentRecord {
    return agentRecord(
      row,
      this.q.agentSourcesOf.all(row.id).map((m) => m.uuid),
    );
  }
  async createAgent(record: AgentRecord): Promise<void> {
    inTransaction(this.db, () => this.insertAgent(record));
  }
  async getAgent(uuid: string): Promise<AgentRecord | undefined> {
    const row = this.q.agent.get(uuid);
    if (row === undefined) return undefined;
    return this.agentOf(row);
  }
  /**
   * Changes an agent in one transaction (read, change, write), so two processes updating it at
   * once never lose one another's change. Undefined when there is no such agent.
   */
  async changeAgent(
    uuid: string,
    change: (agent: AgentRecord) => AgentRecord,
  ): Promise<AgentRecord | undefined> {
    return inTransaction(this.db, () => {
      const row = this.q.agent.get(uuid);
      if (row === undefined) return undefined;
      const next = change(this.agentOf(row));
      this.q.updateAgent.run({ ...this.agentColumns(next), id: row.id });
      this.setAgentSources(row.id, next.data_source_uuids);
      return next;
    });
  }
  async listAgents(chatbotUuid: string): Promise<AgentRecord[]> {
    const members = membersBy(this.q.agentSources.all(chatbotUuid));
    return this.q.agentsOf
      .all(chatbotUuid)
      .map((row) => agentRecord(row, members.get(row.id) ?? []));
  }

  // ---- data sources (see sources.ts for ingestion) ----
  async getSource(uuid: string): Promise<SourceRecord | undefined> {
    return this.sources.get(uuid);
  }
  async listSources(chatbotUuid: string): Promise<SourceRecord[]> {
    return this.sources.list(chatbotUuid);
  }

  // ---- source tags ----
  private setTagMembers(tagId: number, uuids: string[]): void {
    this.q.clearTagMembers.run(tagId);
    uuids.forEach((uuid, position) => this.q.addTagMember.run(tagId, position, uuid));
  }
  /** A tag row with its members, as the interface shows it. */
  private tagOf(row: TagRow): SourceTagRecord {
    return tagRecord(
      row,
      this.q.tagMembersOf.all(row.id).map((m) => m.uuid),
    );
  }
  async createTag(record: SourceTagRecord): Promise<void> {
    inTransaction(this.db, () => {
      const { lastInsertRowid } = this.q.insertTag.run({
        uuid: record.uuid,
        chatbot_id: this.chatbotId(record.chatbotUuid),
        name: record.name,
        color: record.color,
        created_at: record.created_at,
        modified_at: record.modified_at,
      });
      this.setTagMembers(Number(lastInsertRowid), record.data_source_uuids);
    });
  }
  async getTag(uuid: string): Promise<SourceTagRecord | undefined> {
    const row = this.q.tag.get(uuid);
    if (row === undefined) return undefined;
    return this.tagOf(row);
  }
  /** Changes a source tag in one transaction (see changeAgent). */
  async changeTag(
    uuid: string,
    change: (tag: SourceTagRecord) => SourceTagRecord,
  ): Promise<SourceTagRecord | undefined> {
    return inTransaction(this.db, () => {
      const row = this.q.tag.get(uuid);
      if (row === undefined) return undefined;
      const next = change(this.tagOf(row));
      this.q.updateTag.run({
        id: row.id,
        name: next.name,
        color: next.color,
        modified_at: next.modified_at,
      });
      this.setTagMembers(row.id, next.data_source_uuids);
      return next;
    });
  }
  async listTags(chatbotUuid: string): Promise<SourceTagRecord[]> {
    const members = membersBy(this.q.tagMembers.all(chatbotUuid));
    return this.q.tagsOf.all(chatbotUuid).map((row) => tagRecord(row, members.get(row.id) ?? []));
  }

  // ---- sessions and messages ----
  async createSession(record: SessionRecord): Promise<void> {
    this.q.insertSession.run({
      uuid: record.uuid,
      chatbot_id: this.chatbotId(record.chatbotUuid),
      initial_variables_json:
        record.initial_variables === undefined ? null : JSON.stringify(record.initial_variables),
      last_agent_uuid: record.lastAgentUuid ?? null,
      created_at: record.created_at,
      modified_at: record.modified_at,
    });
  }
  async getSession(uuid: string): Promise<SessionRecord | undefined> {
    const row = this.q.session.get(uuid);
    return row && sessionRecord(row);
  }
  async listMessages(sessionUuid: string): Promise<StoredMessage[]> {
    return this.q.messages.all(sessionUuid).map(messageWire);
  }
  /** The session's last `count` messages, oldest first (an answer's history). */
  async lastMessages(sessionUuid: string, count: number): Promise<StoredMessage[]> {
    return this.q.lastMessages.all(sessionUuid, count).map(messageWire);
  }
  /**
   * Stores an answer and touches its session (the agent that answered, the time) together:
   * one row added, whatever the length of the conversation.
   */
  async appendMessage(
    sessionUuid: string,
    message: StoredMessage,
    session: { lastAgentUuid?: string; modifiedAt: string },
  ): Promise<void> {
    inTransaction(this.db, () => {
      const { changes } = this.q.insertMessage.run({
        ...message,
        error_message: message.error_message ?? null,
        session_uuid: sessionUuid,
      });
      if (changes === 0) throw new Error(`no session ${sessionUuid}`);
      this.q.updateSession.run(session.lastAgentUuid ?? null, session.modifiedAt, sessionUuid);
    });
  }
}
