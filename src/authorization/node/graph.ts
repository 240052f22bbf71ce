/**
 * The Node authorizer's graph (kube's plugin/pkg/auth/authorizer/node/graph.go): vertices
 * are API objects, and every edge points toward the node whose kubelet may read the object
 * it starts from:
 *
 *   node <- pod <- secret | configmap | pvc | serviceAccount
 *   pvc  <- pv  <- secret
 *
 * Edges that end at a pod carry the pod's node as their destination, so a walk toward one
 * node never wanders through pods bound to another. A PV's edges carry none (which pods
 * use its claim is not known when the PV is added). Vertices left without edges are
 * removed, so the graph holds only what some pod ties to some node.
 */

export type VertexType =
  | 'configmap'
  | 'node'
  | 'pod'
  | 'pvc'
  | 'pv'
  | 'resourceclaim'
  | 'resourceslice'
  | 'secret'
  | 'serviceAccount'
  | 'volumeattachment';

interface Edge {
  to: Vertex;
  /** The node this edge leads to, when known (edges toward pods and from pods to nodes). */
  destination?: Vertex;
}

interface Vertex {
  id: string;
  type: VertexType;
  namespace: string;
  name: string;
  out: Map<string, Edge>;
  in: Set<string>;
  /** How many outgoing edges lead to each node: the answer for direct references without a walk. */
  destinations: Map<string, number>;
}

/** What a pod ties to its node. */
export interface PodRelations {
  namespace: string;
  name: string;
  nodeName: string;
  /** Mirror pods get the node edge only: a node must not gain access through a pod it created. */
  mirror: boolean;
  serviceAccountName: string;
  secrets: string[];
  configMaps: string[];
  claims: string[];
}

export interface PersistentVolumeRelations {
  name: string;
  /** The claim the volume is bound to; a volume without one is not in the graph. */
  claim?: { namespace: string; name: string };
  /** Secrets a kubelet reads to mount the volume. */
  secrets: Array<{ namespace: string; name: string }>;
}

const vertexId = (type: VertexType, namespace: string, name: string) => `${type}\u0000${namespace}\u0000${name}`;

export class NodeGraph {
  private readonly vertices = new Map<string, Vertex>();

  /** Number of vertices (objects some pod ties to some node, and those nodes). */
  get size(): number {
    return this.vertices.size;
  }

  has(type: VertexType, namespace: string, name: string): boolean {
    return this.vertices.has(vertexId(type, namespace, name));
  }

  /** Replaces everything a pod contributed with its current relations. */
  setPod(pod: PodRelations): void {
    this.deleteVertex(vertexId('pod', pod.namespace, pod.name));
    const podVertex = this.vertex('pod', pod.namespace, pod.name);
    const node = this.vertex('node', '', pod.nodeName);
    this.addEdge(podVertex, node, node);
    if (pod.mirror) return;
    const link = (type: VertexType, name: string) => this.addEdge(this.vertex(type, pod.namespace, name), podVertex, node);
    if (pod.serviceAccountName) link('serviceAccount', pod.serviceAccountName);
    for (const secret of pod.secrets) link('secret', secret);
    for (const configMap of pod.configMaps) link('configmap', configMap);
    for (const claim of pod.claims) link('pvc', claim);
  }

  deletePod(namespace: string, name: string): void {
    this.deleteVertex(vertexId('pod', namespace, name));
  }

  /** Replaces a persistent volume's edges: pv -> its claim, and each kubelet-visible secret -> pv. */
  setPersistentVolume(pv: PersistentVolumeRelations): void {
    this.deleteVertex(vertexId('pv', '', pv.name));
    if (!pv.claim) return;
    const pvVertex = this.vertex('pv', '', pv.name);
    this.addEdge(pvVertex, this.vertex('pvc', pv.claim.namespace, pv.claim.name));
    for (const secret of pv.secrets) this.addEdge(this.vertex('secret', secret.namespace, secret.name), pvVertex);
  }

  deletePersistentVolume(name: string): void {
    this.deleteVertex(vertexId('pv', '', name));
  }

  /** Whether the object leads to the node: the question every graph decision asks. */
  hasPathFrom(nodeName: string, type: VertexType, namespace: string, name: string): boolean {
    const node = this.vertices.get(vertexId('node', '', nodeName));
    const start = this.vertices.get(vertexId(type, namespace, name));
    if (!node || !start) return false;
    if ((start.destinations.get(node.id) ?? 0) > 0) return true;
    const visited = new Set<string>([start.id]);
    const pending = [start];
    while (pending.length) {
      const vertex = pending.pop()!;
      for (const edge of vertex.out.values()) {
        // An edge known to lead to another node is never followed.
        if (edge.destination && edge.destination.id !== node.id) continue;
        if (edge.destination || edge.to.id === node.id) return true;
        if (!visited.has(edge.to.id)) {
          visited.add(edge.to.id);
          pending.push(edge.to);
        }
      }
    }
    return false;
  }

  private vertex(type: VertexType, namespace: string, name: string): Vertex {
    const id = vertexId(type, namespace, name);
    let vertex = this.vertices.get(id);
    if (!vertex) {
      vertex = { id, type, namespace, name, out: new Map(), in: new Set(), destinations: new Map() };
      this.vertices.set(id, vertex);
    }
    return vertex;
  }

  private addEdge(from: Vertex, to: Vertex, destination?: Vertex): void {
    const existing = from.out.get(to.id);
    if (existing?.destination) this.countDestination(from, existing.destination, -1);
    from.out.set(to.id, destination ? { to, destination } : { to });
    to.in.add(from.id);
    if (destination) this.countDestination(from, destination, 1);
  }

  private countDestination(from: Vertex, destination: Vertex, delta: number): void {
    const count = (from.destinations.get(destination.id) ?? 0) + delta;
    if (count > 0) from.destinations.set(destination.id, count);
    else from.destinations.delete(destination.id);
  }

  /** Removes a vertex and its edges, then every neighbour left without edges. */
  private deleteVertex(id: string): void {
    const vertex = this.vertices.get(id);
    if (!vertex) return;
    const neighbours = new Set<Vertex>();
    for (const edge of vertex.out.values()) {
      edge.to.in.delete(id);
      neighbours.add(edge.to);
    }
    for (const fromId of vertex.in) {
      const from = this.vertices.get(fromId)!;
      const edge = from.out.get(id)!;
      if (edge.destination) this.countDestination(from, edge.destination, -1);
      from.out.delete(id);
      neighbours.add(from);
    }
    this.vertices.delete(id);
    for (const neighbour of neighbours) {
      if (neighbour.in.size === 0 && neighbour.out.size === 0) this.vertices.delete(neighbour.id);
    }
  }
}
