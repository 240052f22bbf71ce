import { flag, FlagUse, int, SECTION, subsystem, text } from './flag';

export type LoggingFormat = 'text' | 'json';

/** `--logging-format`: kube's two formats. */
function loggingFormat(value: string): LoggingFormat {
  if (value !== 'text' && value !== 'json') throw new Error('Unsupported log format');
  return value;
}

const level = int(0, 2 ** 31 - 1);

/** klog's `-v`/`--v`: pflag also reads `-v=2`, where commander hands over `=2`. */
function verbosity(value: string, use: FlagUse<number>): number {
  return level.parse(value.replace(/^=/, ''), use);
}

/** component-base's LoggingOptions and klog's verbosity. */
export const logging = subsystem({
  section: SECTION.logging,
  flags: {
    loggingFormat: flag({ name: 'logging-format', ...text(loggingFormat), default: 'text', usage: 'Sets the log format. Permitted formats: "json", "text".' }),
    /** 0: start-up and controller events; 2: one line per request. */
    verbosity: flag({
      name: 'v',
      short: 'v',
      type: 'Level',
      parse: verbosity,
      default: 0,
      usage: 'number for the log level verbosity',
    }),
  },
});
