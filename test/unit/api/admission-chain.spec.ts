import { AdmissionChain, AdmissionPlugin, AdmissionRequest } from '../../../src/registry/rest/admission';
import { ADMISSION_PLUGINS } from '../../../src/config/options';
import { SYSTEM_USER } from '../../../src/apimachinery/user-info';
import { roleType } from '../../../src/rbac/kinds/kinds';

/** The admission chain runs its plugins in the one documented order, whatever order they register in. */
describe('AdmissionChain', () => {
  const ran: string[] = [];
  const plugin = (name: string): AdmissionPlugin => ({ name, admit: async () => void ran.push(name) });
  const request: AdmissionRequest = {
    operation: 'CREATE',
    target: { type: roleType, groupResource: { group: roleType.group, resource: 'roles' }, namespace: 'ns', name: 'r' },
    object: { metadata: { name: 'r' } },
    options: { user: SYSTEM_USER, dryRun: false },
  };
  beforeEach(() => (ran.length = 0));

  it("the server's order is kube's: NamespaceLifecycle, then NodeRestriction", () => {
    expect(ADMISSION_PLUGINS).toEqual(['NamespaceLifecycle', 'NodeRestriction']);
  });

  it('runs the ordered plugins in their order, then any other in registration order', async () => {
    const chain = new AdmissionChain();
    chain.register(plugin('recorder-b'));
    chain.register(plugin('NodeRestriction'));
    chain.register(plugin('recorder-a'));
    chain.register(plugin('NamespaceLifecycle'));
    expect(chain.names()).toEqual(['NamespaceLifecycle', 'NodeRestriction', 'recorder-b', 'recorder-a']);
    await chain.admit(request);
    expect(ran).toEqual(['NamespaceLifecycle', 'NodeRestriction', 'recorder-b', 'recorder-a']);
  });

  it('stops at the first refusal and refuses a plugin registered twice', async () => {
    const chain = new AdmissionChain(['first', 'second']);
    chain.register(plugin('second'));
    chain.register({ name: 'first', admit: async () => Promise.reject(new Error('refused')) });
    await expect(chain.admit(request)).rejects.toThrow('refused');
    expect(ran).toEqual([]);
    expect(() => chain.register(plugin('second'))).toThrow('admission plugin second registered twice');
  });
});
