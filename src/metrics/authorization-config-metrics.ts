import { configControllerMetrics } from './config-controller-metrics';

/** kube's authorization-configuration controller metrics (apiserver/pkg/server/options/authorizationconfig/metrics). */
export const authorizationConfigMetrics = configControllerMetrics('authorization');
