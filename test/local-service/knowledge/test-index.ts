// A knowledge index on a fresh in-memory database, for tests that search without the HTTP
// side: add() stores the source's chatbot and record first (as ingestion does), then indexes.
import { openServiceDb, type ServiceDb } from '../../../src/local-service/db/open.js';
import { createKnowledgeIndex } from '../../../src/local-service/knowledge/search-index.js';
import type { KnowledgeIndex, SourceText } from '../../../src/local-service/knowledge/types.js';
import { Repository } from '../../../src/local-service/repository.js';

export interface TestIndex extends KnowledgeIndex {
  db: ServiceDb;
}

export function testIndex(url = 'memory://'): TestIndex {
  const db = openServiceDb(url);
  const repo = new Repository(db);
  const index = createKnowledgeIndex(db);
  const at = new Date(0).toISOString();
  const known = db.prepare<[string]>('SELECT 1 FROM chatbots WHERE uuid = ?');
  const ensureChatbot = async (uuid: string) => {
    if (known.get(uuid) !== undefined) return;
    // Synchronous underneath: nothing runs between the check and the insert.
    void repo.createChatbot({
      owner: 'test',
      uuid,
      name: uuid,
      created_at: at,
      modified_at: at,
      meta: {
        visibility: 'private',
        rate_limit: [20, 240],
        rate_limit_message: 'slow',
        show_citations: true,
      },
    });
  };
  return {
    db,
    async add(source: SourceText) {
      await ensureChatbot(source.chatbotUuid);
      if (!repo.sources.get(source.uuid)) {
        repo.sources.createPending({
          owner: 'test',
          chatbotUuid: source.chatbotUuid,
          uuid: source.uuid,
          title: source.title,
          type: source.type,
          status: 'success',
          file_name: source.fileName,
          file_size: source.text.length,
          tokens: 0,
          meta_json: '{}',
          created_at: at,
          modified_at: at,
          ...(source.link === undefined ? {} : { link: source.link }),
        });
      }
      return index.add(source);
    },
    rename: (uuid, title) => index.rename(uuid, title),
    search: (chatbot, query, options) => index.search(chatbot, query, options),
    async close() {
      await index.close();
      db.close();
    },
  };
}
