import { ControllerRunner } from '../../../src/controllers/controller-runner';
import { roleBindingType } from '../../../src/rbac/kinds/kinds';
import type { Database } from '../../../src/storage/engine/database';
import type { SharedInformerFactory } from '../../../src/storage/informer/shared-informer-factory';
import { eventually } from '../../support/eventually';

/**
 * The runner's loop on the embedded store's elector (leading at once): each change of a
 * watched kind wakes it for one sync, and nothing of a wait outlives it.
 */
describe('ControllerRunner', () => {
  type Handler = { onAdd(): void };
  let handler: Handler | undefined;
  let syncs = 0;
  const informers = {
    informerFor: () => ({
      start: async () => undefined,
      addEventHandler: (h: Handler) => {
        handler = h;
        return () => (handler = undefined);
      },
    }),
  } as unknown as SharedInformerFactory;
  const controller = { name: 'counting', watches: [roleBindingType], sync: async () => void syncs++ };
  let runner: ControllerRunner;

  beforeEach(async () => {
    syncs = 0;
    runner = new ControllerRunner([controller], informers, { engine: 'pglite' } as Database);
    await runner.start();
  });
  afterEach(() => runner.beforeApplicationShutdown());

  it('syncs again after each change and leaves no abort listener behind per wake', async () => {
    const added = jest.spyOn(EventTarget.prototype, 'addEventListener');
    const removed = jest.spyOn(EventTarget.prototype, 'removeEventListener');
    const abortListeners = () =>
      added.mock.calls.filter(([type]) => type === 'abort').length - removed.mock.calls.filter(([type]) => type === 'abort').length;
    try {
      await eventually(() => expect(syncs).toBeGreaterThanOrEqual(1));
      for (let i = 1; i <= 30; i++) {
        const before = syncs;
        handler!.onAdd();
        await eventually(() => expect(syncs).toBeGreaterThan(before), 2000, 5);
      }
      // At most the one wait in progress holds a listener (each wait used to leave its own).
      expect(abortListeners()).toBeLessThanOrEqual(1);
    } finally {
      added.mockRestore();
      removed.mockRestore();
    }
  });
});
