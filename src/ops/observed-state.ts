// The state store with de-duplication hits reported: a claim that loses is an event delivered
// again (a Slack retry, the other replica, a gateway replay). The platform is the key's first
// segment ("slack:event:…", "discord:message:…"), a closed set; the rest of the key is never used.
// Only deliveries count: a claim that makes something happen once (the assistant pane's thread
// title, lost by every later question) is no event delivered again.
import type { BridgeObserver } from '../bridge/observer.js';
import type { IntakeQueue, IntakeStore, StateStore } from '../state/types.js';

/** Keys of claims on a delivery: an event, a message or an interaction. */
const DELIVERY = /^[^:]+:(?:event|message|interaction):/;

export function observeDedup<S extends StateStore>(state: S, observer: BridgeObserver): S {
  const dedup = state.dedup;
  const observed = {
    async claim(key: string, ttlMs: number) {
      const won = await dedup.claim(key, ttlMs);
      if (!won && DELIVERY.test(key))
        observer.duplicateEvent?.(key.slice(0, Math.max(0, key.indexOf(':'))) || 'other');
      return won;
    },
  };
  // A kept event's redelivery loses at the intake queue (its key), not at a dedup claim.
  const intake = state.intake && observeIntake(state.intake, observer);
  return new Proxy(state, {
    get: (target, property, receiver) =>
      property === 'dedup'
        ? observed
        : property === 'intake'
          ? intake
          : (Reflect.get(target, property, receiver) as unknown),
  });
}

function observeIntake(intake: IntakeStore, observer: BridgeObserver): IntakeStore {
  const queues = new Map<string, IntakeQueue>();
  return {
    leaseMs: intake.leaseMs,
    queue(name) {
      let queue = queues.get(name);
      if (!queue) {
        const inner = intake.queue(name);
        queue = new Proxy(inner, {
          get: (target, property) => {
            if (property !== 'keep') {
              const value: unknown = Reflect.get(target, property, target);
              return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
            }
            return async (key: string, payload: string) => {
              const kept = await target.keep(key, payload);
              if (!kept) observer.duplicateEvent?.(name);
              return kept;
            };
          },
        });
        queues.set(name, queue);
      }
      return queue;
    },
  };
}
