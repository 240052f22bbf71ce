import { FlagError, HelpRequested, parseServerFlags } from '../../../src/config/flags';

describe('health, shutdown and logging flags', () => {
  it("defaults as kube-apiserver's", () => {
    expect(parseServerFlags([], {})).toMatchObject({
      livezGracePeriodMs: 0,
      shutdownDelayMs: 0,
      shutdownSendRetryAfter: false,
      shutdownWatchTerminationGracePeriodMs: 0,
      verbosity: 0,
      loggingFormat: 'text',
    });
  });

  it('reads the durations, the bool and every spelling of -v', () => {
    const o = parseServerFlags(
      ['--livez-grace-period=2m', '--shutdown-delay-duration', '15s', '--shutdown-send-retry-after', '--shutdown-watch-termination-grace-period=1m30s', '--logging-format=json'],
      {},
    );
    expect(o).toMatchObject({
      livezGracePeriodMs: 120_000,
      shutdownDelayMs: 15_000,
      shutdownSendRetryAfter: true,
      shutdownWatchTerminationGracePeriodMs: 90_000,
      loggingFormat: 'json',
    });
    for (const argv of [['-v', '2'], ['-v=2'], ['-v2'], ['--v=2'], ['--v', '2']]) expect(parseServerFlags(argv, {}).verbosity).toBe(2);
  });

  it('names the flag when a value is bad', () => {
    expect(() => parseServerFlags(['--logging-format=yaml'], {})).toThrow(new FlagError('invalid argument "yaml" for "--logging-format" flag: Unsupported log format'));
    expect(() => parseServerFlags(['-v=high'], {})).toThrow(new FlagError('invalid argument "=high" for "-v, --v" flag: strconv.ParseInt: parsing "high": invalid syntax'));
    expect(() => parseServerFlags(['--shutdown-delay-duration=soon'], {})).toThrow(/^invalid argument "soon" for "--shutdown-delay-duration" flag: time: invalid duration "soon"$/);
  });

  it('lists them in --help as kube does, -v with its shorthand', () => {
    let help = '';
    try {
      parseServerFlags(['--help'], {});
    } catch (err) {
      help = (err as HelpRequested).helpText;
    }
    expect(help).toMatch(/^ {2}-v, --v Level +number for the log level verbosity$/m);
    expect(help).toMatch(/^ {6}--logging-format string +.*\(default "text"\)$/m);
    expect(help).toMatch(/^ {6}--shutdown-delay-duration duration +.*\(default 0s\)$/m);
    expect(help).toMatch(/^ {6}--livez-grace-period duration +/m);
    expect(help).toMatch(/^ {6}--shutdown-send-retry-after +If true/m);
    expect(help).toMatch(/^ {6}--shutdown-watch-termination-grace-period duration +/m);
  });
});
