// Keeps the part of Discord's OpenAPI description (github.com/discord/discord-api-spec,
// specs/openapi.json at 74fda0f, MIT: LICENSE beside this file) that the bridge's requests touch: the
// operations below with their parameters and request bodies, and every schema they refer to.
// Run: npx tsx test/conformance/discord/extract-spec.ts <path to specs/openapi.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const OPERATIONS: Record<string, string[]> = {
  '/channels/{channel_id}': ['get'],
  '/channels/{channel_id}/messages': ['get', 'post'],
  '/channels/{channel_id}/messages/{message_id}': ['get', 'patch', 'delete'],
  '/channels/{channel_id}/messages/{message_id}/threads': ['post'],
  '/channels/{channel_id}/typing': ['post'],
  '/interactions/{interaction_id}/{interaction_token}/callback': ['post'],
  '/webhooks/{webhook_id}/{webhook_token}': ['post'],
  '/webhooks/{webhook_id}/{webhook_token}/messages/@original': ['patch', 'delete'],
  '/applications/{application_id}/commands': ['put', 'get'],
  '/applications/{application_id}/guilds/{guild_id}/commands': ['put', 'get'],
  '/users/@me/channels': ['post'],
  '/guilds/{guild_id}': ['get'],
  '/users/@me': ['get'],
  '/applications/@me': ['get'],
  '/gateway/bot': ['get'],
};

type Json = Record<string, unknown>;

function refsIn(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) refsIn(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') out.add(inner);
      else refsIn(inner, out);
    }
  }
}

function extract(spec: Json): Json {
  const paths = spec.paths as Record<string, Json>;
  const components = spec.components as Record<string, Record<string, unknown>>;
  const keptPaths: Record<string, Json> = {};
  const pending = new Set<string>();
  for (const [path, methods] of Object.entries(OPERATIONS)) {
    const item = paths[path];
    if (!item) throw new Error(`the spec has no ${path}`);
    const kept: Json = item.parameters ? { parameters: item.parameters } : {};
    for (const method of methods) {
      const operation = item[method] as Json | undefined;
      if (!operation) throw new Error(`the spec has no ${method.toUpperCase()} ${path}`);
      // Responses are not checked: only what the bridge sends.
      const { responses: _responses, ...request } = operation;
      kept[method] = request;
    }
    keptPaths[path] = kept;
    refsIn(kept, pending);
  }
  const keptComponents: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  while (pending.size > 0) {
    const ref = pending.values().next().value as string;
    pending.delete(ref);
    if (seen.has(ref)) continue;
    seen.add(ref);
    const [, , section, name] = ref.split('/');
    const value = components[section!]?.[name!];
    if (value === undefined) throw new Error(`unresolved ${ref}`);
    (keptComponents[section!] ??= {})[name!] = value;
    refsIn(value, pending);
  }
  return {
    openapi: spec.openapi,
    info: spec.info,
    servers: spec.servers,
    paths: keptPaths,
    components: keptComponents,
  };
}

if (process.argv[2]) {
  const spec = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Json;
  const out = resolve(import.meta.dirname, 'openapi-subset.json');
  writeFileSync(out, `${JSON.stringify(extract(spec))}\n`);
  console.log(`wrote ${out}`);
}
