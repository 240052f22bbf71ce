import { AccessAnalyzer } from './access-analyzer';

/**
 * The AccessModule's analyzer for other modules (least privilege explains refusals with it):
 * set when the module starts, before any request is served.
 */
export class AccessAnalyzerRef {
  analyzer: AccessAnalyzer | undefined;
}
