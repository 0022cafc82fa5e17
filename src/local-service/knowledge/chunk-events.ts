// Who is told when a source's chunks are written (by ChunkStore, in its caller's transaction):
// the semantic index embeds them. A listener must not touch the database at once (the
// transaction may still roll back); it schedules its work for after the commit.
import type { ServiceDb } from '../db/open.js';

type Listener = (sourceId: number) => void;

const listeners = new WeakMap<ServiceDb, Set<Listener>>();

/** Calls `listener` with the source id whenever a source's chunks are written on `db`. */
export function onChunksWritten(db: ServiceDb, listener: Listener): () => void {
  const set = listeners.get(db) ?? new Set<Listener>();
  listeners.set(db, set);
  set.add(listener);
  return () => set.delete(listener);
}

export function chunksWritten(db: ServiceDb, sourceId: number): void {
  for (const listener of listeners.get(db) ?? []) listener(sourceId);
}
