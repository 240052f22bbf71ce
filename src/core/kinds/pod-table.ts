import { ageColumn, nameColumn } from '../../runtime/table/columns';
import { humanDuration } from '../../runtime/table/human-duration';
import { TableDefinition, TableRowCondition } from '../../runtime/table/table';
import { isPlainObject } from '../../apimachinery/types';
import { list, record, str } from '../../apimachinery/validation/shape';
import type { Pod } from './pod';

/**
 * kube's Pod printer (printPod): READY, STATUS and RESTARTS are computed from the container
 * statuses the kubelet reports, the way `kubectl get pods` shows them.
 */

type Obj = Record<string, unknown>;

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

const records = (value: unknown): Obj[] => list<unknown>(value).map(record);
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

/** A pod condition of this type has status True. */
function conditionTrue(status: Obj, type: string): boolean {
  return records(status.conditions).some((c) => c.type === type && c.status === 'True');
}

/** When a container last stopped (its lastState.terminated.finishedAt), in ms. */
function lastFinish(containerStatus: Obj): number | undefined {
  const terminated = record(record(containerStatus.lastState).terminated);
  const at = Date.parse(str(terminated.finishedAt));
  return Number.isNaN(at) ? undefined : at;
}

const later = (a: number | undefined, b: number | undefined): number | undefined => (b !== undefined && (a === undefined || b > a) ? b : a);

/** A terminated container without a reason: its signal, else its exit code. */
function exitText(terminated: Obj): string {
  return count(terminated.signal) !== 0 ? `Signal:${count(terminated.signal)}` : `ExitCode:${count(terminated.exitCode)}`;
}

/** A sidecar: an init container that keeps running (restartPolicy Always). */
function restartableInitContainers(spec: Obj): Set<string> {
  return new Set(records(spec.initContainers).filter((c) => c.restartPolicy === 'Always').map((c) => str(c.name)));
}

function summarize(pod: Pod, now: Date): PodSummary {
  const spec = record(pod.spec);
  const status = record(pod.status);
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  if (records(status.conditions).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  const sidecars = restartableInitContainers(spec);
  const total = list(spec.containers).length + sidecars.size;
  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;

  let initializing = false;
  const initStatuses = records(status.initContainerStatuses);
  for (const [i, container] of initStatuses.entries()) {
    const state = record(container.state);
    const isSidecar = sidecars.has(str(container.name));
    restarts += count(container.restartCount);
    lastRestart = later(lastRestart, lastFinish(container));
    if (isSidecar) {
      sidecarRestarts += count(container.restartCount);
      lastSidecarRestart = later(lastSidecarRestart, lastFinish(container));
    }
    const terminated = isPlainObject(state.terminated) ? state.terminated : undefined;
    const waitingReason = str(record(state.waiting).reason);
    if (terminated && count(terminated.exitCode) === 0) continue;
    if (isSidecar && container.started === true) {
      if (container.ready === true) ready++;
      continue;
    }
    if (terminated) reason = `Init:${str(terminated.reason) || exitText(terminated)}`;
    else if (waitingReason && waitingReason !== 'PodInitializing') reason = `Init:${waitingReason}`;
    else reason = `Init:${i}/${list(spec.initContainers).length}`;
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(status, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    for (const container of records(status.containerStatuses).reverse()) {
      const state = record(container.state);
      restarts += count(container.restartCount);
      lastRestart = later(lastRestart, lastFinish(container));
      const terminated = isPlainObject(state.terminated) ? state.terminated : undefined;
      const waitingReason = str(record(state.waiting).reason);
      if (waitingReason) reason = waitingReason;
      else if (terminated) reason = str(terminated.reason) || exitText(terminated);
      else if (container.ready === true && isPlainObject(state.running)) {
        hasRunning = true;
        ready++;
      }
    }
    // A container still running keeps a pod whose others completed Running (or NotReady).
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(status, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsText = restarts !== 0 && lastRestart !== undefined ? `${restarts} (${humanDuration(now.getTime() - lastRestart)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, status: reason, restarts: restartsText };
}

/** The three summary columns of a row read one computation (per object and clock). */
const summaries = new WeakMap<Pod, { now: Date; summary: PodSummary }>();
function summaryOf(pod: Pod, now: Date): PodSummary {
  let memo = summaries.get(pod);
  if (memo?.now !== now) summaries.set(pod, (memo = { now, summary: summarize(pod, now) }));
  return memo.summary;
}

/** `<none>` for what the pod does not have yet. */
const orNone = (value: string): string => value || '<none>';

/** READINESS GATES: how many of the gates' conditions are True, of how many gates. */
function readinessGates(pod: Pod): string {
  const gates = records(record(pod.spec).readinessGates);
  if (!gates.length) return '<none>';
  const conditions = records(record(pod.status).conditions);
  const passed = gates.filter((gate) => conditions.find((c) => c.type === gate.conditionType)?.status === 'True').length;
  return `${passed}/${gates.length}`;
}

const COMPLETED: Record<string, TableRowCondition[]> = {
  Succeeded: [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }],
  Failed: [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }],
};

export const podTable: TableDefinition<Pod> = {
  columns: [
    nameColumn,
    { name: 'Ready', type: 'string', description: 'The aggregate readiness state of this pod for accepting traffic.', cell: (pod, now) => summaryOf(pod, now).ready },
    { name: 'Status', type: 'string', description: 'The aggregate status of the containers in this pod.', cell: (pod, now) => summaryOf(pod, now).status },
    {
      name: 'Restarts',
      type: 'string',
      description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      cell: (pod, now) => summaryOf(pod, now).restarts,
    },
    ageColumn,
    {
      name: 'IP',
      type: 'string',
      priority: 1,
      description:
        'podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
      cell: (pod) => orNone(str(records(record(pod.status).podIPs)[0]?.ip)),
    },
    {
      name: 'Node',
      type: 'string',
      priority: 1,
      description:
        'NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName. Once this field is set, the kubelet for this node becomes responsible for the lifecycle of this pod. This field should not be used to express a desire for the pod to be scheduled on a specific node. https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename',
      cell: (pod) => orNone(str(record(pod.spec).nodeName)),
    },
    {
      name: 'Nominated Node',
      type: 'string',
      priority: 1,
      description:
        'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.',
      cell: (pod) => orNone(str(record(pod.status).nominatedNodeName)),
    },
    {
      name: 'Readiness Gates',
      type: 'string',
      priority: 1,
      description:
        'If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to "True" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates',
      cell: readinessGates,
    },
  ],
  rowConditions: (pod) => COMPLETED[str(record(pod.status).phase)] ?? [],
};
