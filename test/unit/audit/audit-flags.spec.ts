import { FlagError, HelpRequested, parseServerFlags } from '../../../src/config/flags';
import { defaultAuditOptions } from '../../../src/config/options';

describe('the --audit-* flags', () => {
  it('have kube-apiserver defaults', () => {
    expect(parseServerFlags([], {}).audit).toEqual(defaultAuditOptions());
    expect(defaultAuditOptions()).toMatchObject({
      logFormat: 'json',
      logMode: 'blocking',
      logBatch: { bufferSize: 10000, maxSize: 1, maxWaitMs: 30000, throttleEnable: false },
      webhookMode: 'batch',
      webhookBatch: { bufferSize: 10000, maxSize: 400, maxWaitMs: 30000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 },
      webhookInitialBackoffMs: 10000,
      logVersion: 'audit.platform.io/v1',
      webhookVersion: 'audit.platform.io/v1',
      logTruncate: { enabled: false, maxBatchSize: 10485760, maxEventSize: 102400 },
      webhookTruncate: { enabled: false, maxBatchSize: 10485760, maxEventSize: 102400 },
    });
  });

  it('read the version and truncate flags of both backends', () => {
    const audit = parseServerFlags(
      [
        '--audit-log-version=audit.platform.io/v1', '--audit-log-truncate-enabled', '--audit-log-truncate-max-batch-size=5000', '--audit-log-truncate-max-event-size=2000',
        '--audit-webhook-version=audit.platform.io/v1', '--audit-webhook-truncate-enabled=true', '--audit-webhook-truncate-max-batch-size=7000', '--audit-webhook-truncate-max-event-size=3000',
      ],
      {},
    ).audit;
    expect(audit).toEqual({
      ...defaultAuditOptions(),
      logTruncate: { enabled: true, maxBatchSize: 5000, maxEventSize: 2000 },
      webhookTruncate: { enabled: true, maxBatchSize: 7000, maxEventSize: 3000 },
    });
  });

  it('read every value', () => {
    const audit = parseServerFlags(
      [
        '--audit-policy-file=policy.yaml', '--audit-log-path=-', '--audit-log-format=legacy', '--audit-log-maxage=7', '--audit-log-maxbackup=3',
        '--audit-log-maxsize=50', '--audit-log-compress', '--audit-log-mode=batch', '--audit-log-batch-buffer-size=5', '--audit-log-batch-max-size=2',
        '--audit-log-batch-max-wait=5s', '--audit-log-batch-throttle-enable', '--audit-log-batch-throttle-qps=2.5', '--audit-log-batch-throttle-burst=4',
        '--audit-webhook-config-file=hook.kubeconfig', '--audit-webhook-mode=blocking-strict', '--audit-webhook-initial-backoff=250ms',
      ],
      {},
    ).audit;
    expect(audit).toEqual({
      ...defaultAuditOptions(),
      policyFile: 'policy.yaml',
      logPath: '-',
      logFormat: 'legacy',
      logMaxAge: 7,
      logMaxBackup: 3,
      logMaxSize: 50,
      logCompress: true,
      logMode: 'batch',
      logBatch: { bufferSize: 5, maxSize: 2, maxWaitMs: 5000, throttleEnable: true, throttleQps: 2.5, throttleBurst: 4 },
      webhookConfigFile: 'hook.kubeconfig',
      webhookMode: 'blocking-strict',
      webhookInitialBackoffMs: 250,
    });
  });

  it('refuse bad values in kube words, naming the flag', () => {
    const refused = (arg: string) => {
      try {
        parseServerFlags([arg], {});
      } catch (err) {
        if (err instanceof FlagError) return err.message;
      }
      return 'accepted';
    };
    expect(refused('--audit-log-mode=sometimes')).toBe('invalid argument "sometimes" for "--audit-log-mode" flag: invalid audit log mode sometimes, allowed modes are "batch,blocking,blocking-strict"');
    expect(refused('--audit-webhook-mode=x')).toBe('invalid argument "x" for "--audit-webhook-mode" flag: invalid audit webhook mode x, allowed modes are "batch,blocking,blocking-strict"');
    expect(refused('--audit-log-format=xml')).toBe('invalid argument "xml" for "--audit-log-format" flag: invalid audit log format xml, allowed formats are "legacy,json"');
    expect(refused('--audit-log-maxage=-1')).toBe('invalid argument "-1" for "--audit-log-maxage" flag: --audit-log-maxage -1 can\'t be a negative number');
    expect(refused('--audit-log-maxsize=big')).toBe('invalid argument "big" for "--audit-log-maxsize" flag: strconv.ParseInt: parsing "big": invalid syntax');
    expect(refused('--audit-webhook-batch-throttle-qps=fast')).toBe('invalid argument "fast" for "--audit-webhook-batch-throttle-qps" flag: strconv.ParseFloat: parsing "fast": invalid syntax');
    expect(refused('--audit-log-path=')).toBe('invalid argument "" for "--audit-log-path" flag: must not be empty');
    expect(refused('--audit-log-version=audit.platform.io/v1beta1')).toBe(
      'invalid argument "audit.platform.io/v1beta1" for "--audit-log-version" flag: invalid group version, allowed versions are ["audit.platform.io/v1"]',
    );
    expect(refused('--audit-webhook-version=v1')).toBe('invalid argument "v1" for "--audit-webhook-version" flag: invalid group version, allowed versions are ["audit.platform.io/v1"]');
    expect(refused('--audit-webhook-truncate-max-event-size=big')).toBe('invalid argument "big" for "--audit-webhook-truncate-max-event-size" flag: strconv.ParseInt: parsing "big": invalid syntax');
    expect(refused('--audit-log-truncate-enabled=maybe')).toBe('invalid argument "maybe" for "--audit-log-truncate-enabled" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
  });

  it('are listed in --help under Auditing flags', () => {
    let help = '';
    try {
      parseServerFlags(['--help'], {});
    } catch (err) {
      help = (err as HelpRequested).helpText;
    }
    expect(help).toContain('Auditing flags:');
    expect(help).toMatch(/--audit-log-mode string\s+Strategy for sending audit events\..* \(default "blocking"\)/);
    expect(help).toMatch(/--audit-webhook-batch-max-size int\s+The maximum size of a batch\. Only used in batch mode\. \(default 400\)/);
    expect(help).toMatch(/--audit-log-version string\s+API group and version used for serializing audit events written to log\. \(default "audit\.platform\.io\/v1"\)/);
    expect(help).toMatch(/--audit-webhook-truncate-enabled\s+Whether event and batch truncating is enabled\.\n/);
    expect(help).toMatch(/--audit-log-truncate-max-batch-size int\s+Maximum size of the batch sent to the underlying backend\..* \(default 10485760\)/);
    expect(help).toMatch(/--audit-webhook-truncate-max-event-size int\s+Maximum size of the audit event sent to the underlying backend\..* \(default 102400\)/);
  });
});
