// The local service's tables, as numbered migrations. PRAGMA user_version holds the number of
// the last one applied; open.ts applies the rest in one transaction at start.
//
// Every record has an integer id (joins, foreign keys, FTS scope tokens) and the uuid the
// interface shows. Nested settings that the interface treats as one value (an agent's meta,
// variables, escalation settings; a session's initial variables; a message's citations) are
// JSON text in their row; every list that is searched or joined on is a table of its own.
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE chatbots (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    visibility TEXT NOT NULL,
    rate_limit_count INTEGER NOT NULL,
    rate_limit_seconds INTEGER NOT NULL,
    rate_limit_message TEXT NOT NULL,
    show_citations INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
  );
  CREATE INDEX chatbots_by_owner ON chatbots(owner, id);

  CREATE TABLE agents (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    chatbot_id INTEGER NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    prompt TEXT NOT NULL,
    type TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    meta_json TEXT NOT NULL,
    human_escalation_json TEXT,
    tool_functions_json TEXT NOT NULL,
    variables_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
  );
  CREATE INDEX agents_by_chatbot ON agents(chatbot_id, id);

  CREATE TABLE sources (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    chatbot_id INTEGER NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    type TEXT NOT NULL,
    status TEXT NOT NULL,
    file_name TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    meta_json TEXT NOT NULL,
    error_message TEXT,
    content_hash TEXT,
    url TEXT,
    link TEXT,
    fetch_lease_until INTEGER,
    fetch_owner TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
  );
  CREATE INDEX sources_by_chatbot ON sources(chatbot_id, id);
  CREATE UNIQUE INDEX sources_by_upload ON sources(chatbot_id, content_hash)
    WHERE content_hash IS NOT NULL;
  CREATE UNIQUE INDEX sources_by_url ON sources(chatbot_id, url) WHERE url IS NOT NULL;
  CREATE INDEX sources_waiting ON sources(status) WHERE status = 'await';

  CREATE TABLE agent_sources (
    agent_id INTEGER NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (agent_id, source_id)
  ) WITHOUT ROWID;
  CREATE INDEX agent_sources_by_source ON agent_sources(source_id);

  CREATE TABLE source_tags (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    chatbot_id INTEGER NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    color TEXT NOT NULL,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
  );
  CREATE INDEX source_tags_by_chatbot ON source_tags(chatbot_id, id);

  CREATE TABLE source_tag_members (
    tag_id INTEGER NOT NULL REFERENCES source_tags(id) ON DELETE CASCADE,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (tag_id, source_id)
  ) WITHOUT ROWID;
  CREATE INDEX source_tag_members_by_source ON source_tag_members(source_id);

  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    chatbot_id INTEGER NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
    initial_variables_json TEXT,
    last_agent_uuid TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
  );
  CREATE INDEX sessions_by_chatbot ON sessions(chatbot_id);

  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    uuid TEXT NOT NULL UNIQUE,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    query TEXT NOT NULL,
    response TEXT NOT NULL,
    cite_data_json TEXT NOT NULL,
    finish_reason TEXT NOT NULL,
    meta_json TEXT NOT NULL,
    error_message TEXT,
    created_at TEXT NOT NULL,
    modified_at TEXT NOT NULL
  );
  CREATE INDEX messages_by_session ON messages(session_id, id);

  CREATE TABLE rate_events (
    id INTEGER PRIMARY KEY,
    chatbot_id INTEGER NOT NULL REFERENCES chatbots(id) ON DELETE CASCADE,
    at INTEGER NOT NULL
  );
  CREATE INDEX rate_events_by_chatbot ON rate_events(chatbot_id, at);

  -- The text of each chunk; its words are indexed in chunks_fts under the same rowid.
  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    section TEXT,
    headings TEXT NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (source_id, position)
  );

  -- scope: "c<chatbot id> s<source id>", so a search is scoped in the MATCH itself.
  -- Contentless (the text lives in chunks once); contentless_delete lets a source's rows go.
  CREATE VIRTUAL TABLE chunks_fts USING fts5(
    scope, title, heading, text,
    content = '',
    contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
  `,
];
