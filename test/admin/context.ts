// A context for admin tests: the real memory state store and the fake client.
import type { AdminContext, AdminOutput } from '../../src/admin/index.js';
import { openState } from '../../src/state/index.js';
import { FakeClient } from './fake-client.js';

export async function makeContext(
  overrides: Partial<AdminContext> = {},
): Promise<AdminContext & { client: FakeClient }> {
  const state = await openState('memory://');
  return {
    platform: 'test',
    workspace: 'W1',
    channel: 'C1',
    thread: 'T1',
    userId: 'U1',
    isAdmin: true,
    client: new FakeClient(),
    state,
    now: () => new Date('2025-02-03T04:05:06Z'),
    ...overrides,
  } as AdminContext & { client: FakeClient };
}

export function errorsOf(output: AdminOutput[]): string[] {
  return output.flatMap((b) => (b.kind === 'notice' && b.tone === 'error' ? [b.text] : []));
}

export function notices(output: AdminOutput[]): string[] {
  return output.flatMap((b) => (b.kind === 'notice' ? [`${b.tone}: ${b.text}`] : []));
}
