// The state store with an intake queue that refuses to keep while the test says the store is
// down (the error node-redis gives for an offline client), everything else passed through.
import type { State } from '../../src/state/index.js';
import type { IntakeQueue, IntakeStore, StateStore } from '../../src/state/types.js';

/** The state store, with an intake queue that refuses to keep while `down` is set. */
export function withFailingIntake(inner: State, control: { down: boolean }): StateStore {
  const intake: IntakeStore = {
    leaseMs: inner.intake!.leaseMs,
    queue(name) {
      const queue = inner.intake!.queue(name);
      return new Proxy(queue, {
        get(target, property) {
          if (property === 'keep') {
            return (key: string, payload: string) =>
              control.down
                ? Promise.reject(new Error('The client is offline'))
                : target.keep(key, payload);
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
        },
      }) as IntakeQueue;
    },
  };
  return new Proxy(inner, {
    get: (target, property) =>
      property === 'intake' ? intake : (Reflect.get(target, property, target) as unknown),
  });
}
