import { StatusError } from '../../src/api/errors';

/** The Status error a call throws; any other outcome fails the test. */
export function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('no error');
}
