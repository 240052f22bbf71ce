import { Controller, Get } from '@nestjs/common';
import { Public } from '../../apimachinery/public.decorator';
import { CURRENT_RELEASE } from '../../apimachinery/release';

/** The Kubernetes release whose API this server follows; kubectl compares against it. */
export const COMPATIBLE_KUBE_VERSION = { major: String(CURRENT_RELEASE.major), minor: String(CURRENT_RELEASE.minor) };

@Controller()
export class VersionController {
  @Public()
  @Get('version')
  version() {
    return {
      ...COMPATIBLE_KUBE_VERSION,
      gitVersion: `v${COMPATIBLE_KUBE_VERSION.major}.${COMPATIBLE_KUBE_VERSION.minor}.0+platform`,
      gitCommit: '',
      gitTreeState: 'clean',
      buildDate: '',
      goVersion: '',
      compiler: 'node',
      platform: `${process.platform}/${process.arch}`,
    };
  }
}
