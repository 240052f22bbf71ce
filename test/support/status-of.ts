import { StatusError } from '../../src/apimachinery/errors';

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

/** kube's NewGenericServerResponse(422): a patch that cannot be applied, with nothing more said. */
export const PATCH_NOT_APPLICABLE = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server rejected our request due to an error in our request',
  reason: 'Invalid',
  details: {},
  code: 422,
};
