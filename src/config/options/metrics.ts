import { CURRENT_RELEASE, releaseText } from '../../apimachinery/release';
import { flag, SECTION, setting, subsystem, text } from './flag';

/** kube's check: only the previous minor release may be named. */
function showHiddenMetricsVersion(value: string): string {
  const previous = releaseText({ major: CURRENT_RELEASE.major, minor: CURRENT_RELEASE.minor - 1 });
  if (value !== previous) throw new Error(`--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`);
  return value;
}

/** kube's MetricsOptions. */
export const metrics = subsystem({
  section: SECTION.metrics,
  flags: {
    /** The previous release, to expose metrics hidden in this one. */
    showHiddenMetricsForVersion: flag({
      name: 'show-hidden-metrics-for-version',
      ...text(showHiddenMetricsVersion),
      usage:
        "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.16'. The purpose of this format is make sure you have the opportunity to notice if the next release hides additional metrics, rather than being surprised when they are permanently removed in the release after that.",
    }),
    /** Per-request metrics (apiserver_request_*, authentication_*) are recorded; the benchmark measures their cost with it off. */
    requestMetrics: setting(true),
  },
});
