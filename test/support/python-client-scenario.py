"""
The official Python client (Debian's python3-kubernetes) driven against a running server, as a
user's first script would use it: discovery through kubernetes.dynamic, CRUD of every RBAC kind
and of Namespaces, the three patch types, a stale replace, errors, watches and a review.

Usage: python3 python-client-scenario.py <kubeconfig> <prefix>
It prints one JSON report of what the client observed; the test asserts on the report. A step
that raises is recorded with its exception and the script goes on, so one report names every
failure.
"""
import json
import sys
import threading
import traceback

from kubernetes import client, config, dynamic, watch
from kubernetes.dynamic.exceptions import DynamicApiError

KUBECONFIG, PREFIX = sys.argv[1], sys.argv[2]
RBAC = 'rbac.authorization.platform.io/v1'
report = {'steps': {}, 'errors': {}}


def step(name):
    def wrap(fn):
        try:
            report['steps'][name] = fn()
        except Exception as e:  # the report names the step that failed and why
            report['errors'][name] = '%s: %s\n%s' % (type(e).__name__, e, traceback.format_exc())
        return fn
    return wrap


def status_of(fn):
    """The HTTP status and Status reason of a call the server refuses."""
    try:
        fn()
    except DynamicApiError as e:
        body = json.loads(e.body) if e.body else {}
        return {'status': e.status, 'reason': body.get('reason'), 'message': body.get('message'), 'kind': body.get('kind')}
    return {'status': 'no error'}


config.load_kube_config(config_file=KUBECONFIG)
api_client = client.ApiClient()
dyn = dynamic.DynamicClient(api_client)

namespaces = dyn.resources.get(api_version='v1', kind='Namespace')
roles = dyn.resources.get(api_version=RBAC, kind='Role')
cluster_roles = dyn.resources.get(api_version=RBAC, kind='ClusterRole')
role_bindings = dyn.resources.get(api_version=RBAC, kind='RoleBinding')
cluster_role_bindings = dyn.resources.get(api_version=RBAC, kind='ClusterRoleBinding')
config_maps = dyn.resources.get(api_version='v1', kind='ConfigMap')
access_reviews = dyn.resources.get(api_version='authorization.platform.io/v1', kind='SubjectAccessReview')

NS = PREFIX + '-ns'
RULE = {'apiGroups': [''], 'resources': ['configmaps'], 'verbs': ['get', 'list']}
ROLE_REF = {'apiGroup': 'rbac.authorization.platform.io', 'kind': 'ClusterRole', 'name': PREFIX + '-reader'}
SUBJECT = {'kind': 'User', 'apiGroup': 'rbac.authorization.platform.io', 'name': PREFIX + '-alice'}


@step('namespace')
def _():
    created = namespaces.create(body={'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': NS}})
    got = namespaces.get(name=NS)
    listed = [n.metadata.name for n in namespaces.get().items]
    return {'created': created.metadata.name, 'phase': got.status.phase, 'listed': NS in listed}


# Each RBAC kind: create, get, list, the three patch types, replace, then a stale replace.
KINDS = [
    ('ClusterRole', cluster_roles, None, {'rules': [RULE]}),
    ('Role', roles, NS, {'rules': [RULE]}),
    ('ClusterRoleBinding', cluster_role_bindings, None, {'roleRef': ROLE_REF, 'subjects': [SUBJECT]}),
    ('RoleBinding', role_bindings, NS, {'roleRef': ROLE_REF, 'subjects': [SUBJECT]}),
]

for kind, resource, namespace, spec in KINDS:
    name = PREFIX + '-reader'

    @step('crud ' + kind)
    def _(kind=kind, resource=resource, namespace=namespace, spec=spec, name=name):
        body = dict({'apiVersion': RBAC, 'kind': kind, 'metadata': {'name': name}}, **spec)
        created = resource.create(body=body, namespace=namespace)
        got = resource.get(name=name, namespace=namespace)
        listed = [i.metadata.name for i in resource.get(namespace=namespace).items]
        merge = resource.patch(name=name, namespace=namespace, body={'metadata': {'labels': {'merge': 'yes'}}},
                               content_type='application/merge-patch+json')
        strategic = resource.patch(name=name, namespace=namespace, body={'metadata': {'labels': {'strategic': 'yes'}}})
        json_patch = resource.patch(name=name, namespace=namespace,
                                    body=[{'op': 'add', 'path': '/metadata/annotations', 'value': {'json': 'yes'}}],
                                    content_type='application/json-patch+json')
        fresh = resource.get(name=name, namespace=namespace).to_dict()
        fresh['metadata']['labels']['replaced'] = 'yes'
        replaced = resource.replace(body=fresh, namespace=namespace)
        stale = status_of(lambda: resource.replace(body=fresh, namespace=namespace))
        return {
            'created': created.metadata.name,
            'got': got.metadata.name,
            'listed': name in listed,
            'labels': dict(replaced.metadata.labels),
            'annotations': dict(json_patch.metadata.annotations or {}),
            'resourceVersionsGrow': int(created.metadata.resourceVersion) < int(merge.metadata.resourceVersion)
            < int(strategic.metadata.resourceVersion) < int(json_patch.metadata.resourceVersion) < int(replaced.metadata.resourceVersion),
            'staleReplace': stale,
        }


@step('errors')
def _():
    missing = status_of(lambda: roles.get(name=PREFIX + '-missing', namespace=NS))
    invalid = status_of(lambda: roles.create(namespace=NS, body={
        'apiVersion': RBAC, 'kind': 'Role', 'metadata': {'name': PREFIX + '-bad'},
        'rules': [{'apiGroups': [''], 'resources': ['pods']}]}))
    return {'notFound': missing, 'invalid': invalid}


@step('subject access review')
def _():
    def review(verb):
        return access_reviews.create(body={
            'apiVersion': 'authorization.platform.io/v1', 'kind': 'SubjectAccessReview',
            'spec': {'user': SUBJECT['name'], 'resourceAttributes': {'namespace': NS, 'verb': verb, 'resource': 'configmaps'}},
        }).status
    allowed, denied = review('list'), review('delete')
    return {'list': allowed.allowed, 'delete': bool(denied.allowed), 'reason': allowed.reason}


@step('watch')
def _():
    """A watch of Roles from a list's resourceVersion: ADDED, MODIFIED, DELETED in order, then a resume."""
    start = roles.get(namespace=NS).metadata.resourceVersion
    name = PREFIX + '-watched'

    def writes():
        roles.create(namespace=NS, body={'apiVersion': RBAC, 'kind': 'Role', 'metadata': {'name': name}, 'rules': [RULE]})
        roles.patch(name=name, namespace=NS, body={'metadata': {'labels': {'step': 'two'}}}, content_type='application/merge-patch+json')
        roles.delete(name=name, namespace=NS)

    # The watch starts from `start`, so the writes may race its connection: every one comes.
    writer = threading.Thread(target=writes)
    writer.start()
    events = []
    watcher = watch.Watch()
    for event in roles.watch(namespace=NS, resource_version=start, timeout=20, watcher=watcher):
        if event['object'].metadata.name != name:
            continue
        events.append((event['type'], event['object'].metadata.resourceVersion))
        if event['type'] == 'DELETED':
            watcher.stop()
    writer.join()
    # Resumed from the MODIFIED event's resourceVersion, the watch sends the DELETED event alone.
    resumed = []
    resume_watcher = watch.Watch()
    for event in roles.watch(namespace=NS, resource_version=events[1][1], timeout=5, watcher=resume_watcher):
        if event['object'].metadata.name == name:
            resumed.append(event['type'])
            resume_watcher.stop()
    versions = [int(rv) for _, rv in events]
    return {'types': [t for t, _ in events], 'resumed': resumed, 'resourceVersionsGrow': versions == sorted(versions)}


@step('watch across namespaces')
def _():
    """kubernetes.watch over the typed all-namespace list of ConfigMaps, and over every RoleBinding through the dynamic client."""
    core = client.CoreV1Api(api_client)
    other = PREFIX + '-other'
    namespaces.create(body={'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': other}})
    start = core.list_config_map_for_all_namespaces(label_selector='scenario=' + PREFIX).metadata.resource_version
    bindings_start = role_bindings.get().metadata.resourceVersion
    for ns in (NS, other):
        core.create_namespaced_config_map(ns, {'metadata': {'name': PREFIX + '-cm', 'labels': {'scenario': PREFIX}}, 'data': {'k': 'v'}})
        role_bindings.create(namespace=ns, body={'apiVersion': RBAC, 'kind': 'RoleBinding', 'metadata': {'name': PREFIX + '-everywhere'},
                                                 'roleRef': ROLE_REF, 'subjects': [SUBJECT]})
    seen = []
    typed = watch.Watch()
    for event in typed.stream(core.list_config_map_for_all_namespaces, label_selector='scenario=' + PREFIX,
                              resource_version=start, timeout_seconds=20, allow_watch_bookmarks=True):
        seen.append([event['type'], type(event['object']).__name__, event['object'].metadata.namespace])
        if len(seen) == 2:
            typed.stop()
    bindings = []
    dynamic_watcher = watch.Watch()
    for event in dynamic_watcher.stream(role_bindings.get, resource_version=bindings_start, timeout_seconds=20, serialize=False):
        if event['object']['metadata']['name'] == PREFIX + '-everywhere':
            bindings.append([event['type'], event['object']['metadata']['namespace']])
        if len(bindings) == 2:
            dynamic_watcher.stop()
    return {'configMaps': seen, 'roleBindings': bindings}


@step('delete')
def _():
    """The D of CRUD, last: each kind's object goes (a get is then 404), and the namespaces end."""
    out = {}
    for kind, resource, namespace, _spec in KINDS:
        deleted = resource.delete(name=PREFIX + '-reader', namespace=namespace)
        out[kind] = {'deleted': deleted.kind, 'after': status_of(lambda: resource.get(name=PREFIX + '-reader', namespace=namespace))['status']}
    ending = namespaces.delete(name=PREFIX + '-other')
    out['Namespace'] = {'deleted': ending.kind, 'phase': ending.status.phase}
    return out


print(json.dumps(report))
