import { FeatureGates, featureGateHelpLines } from '../feature-gates';
import { flag, SECTION, subsystem } from './flag';

/** kube's FeatureOptions: the feature gates. */
export const features = subsystem({
  section: SECTION.featureGate,
  flags: {
    featureGates: flag({
      name: 'feature-gates',
      type: 'mapStringBool',
      parse: (value) => FeatureGates.parse(value),
      default: FeatureGates.defaults(),
      usage: ['A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:', ...featureGateHelpLines()].join('\n'),
    }),
  },
});
