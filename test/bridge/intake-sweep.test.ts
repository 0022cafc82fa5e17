// When a replica looks for events to take over: at once when it starts (it counts as live for a
// hand-off from then on, and answers what ran out while it was down), then every quarter lease,
// so an event whose holder died waits at most a quarter lease past its lease.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Intake } from '../../src/bridge/intake.js';
import { createLogger } from '../../src/log.js';
import { openState, type State } from '../../src/state/index.js';
import { FakeClock } from './helpers/fake-clock.js';

let state: State | undefined;
afterEach(async () => {
  await state?.close();
  state = undefined;
});

describe('intake sweeps', () => {
  it('sweep at start, then every quarter of the lease', async () => {
    state = await openState('memory://', { intakeLeaseMs: 4_000 });
    const clock = new FakeClock();
    const sweptAt: number[] = [];
    const queue = state.intake!.queue('slack');
    const claimExpired = queue.claimExpired.bind(queue);
    vi.spyOn(queue, 'claimExpired').mockImplementation((max) => {
      sweptAt.push(clock.now());
      return claimExpired(max);
    });
    const intake = new Intake<unknown>({
      platform: 'slack',
      state,
      log: createLogger({ level: 'silent' }),
      clock,
      dedupTtlMs: 60_000,
    });
    intake.start(async () => {});
    await clock.advance(0);
    expect(sweptAt).toEqual([0]);
    await clock.advance(3_000);
    expect(sweptAt).toEqual([0, 1_000, 2_000, 3_000]);
    intake.stop();
    await clock.advance(5_000);
    expect(sweptAt).toHaveLength(4);
  });
});
