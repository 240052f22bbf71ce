/** The message of the error of the given class a call throws; 'no error' when it throws none. */
export function thrownMessage(fn: () => unknown, type: new (...args: never[]) => Error): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof type) return err.message;
    throw err;
  }
  return 'no error';
}
