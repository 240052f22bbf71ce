import { FlagError, parseServerFlags } from '../../../src/config/flags';

describe('--enable-admission-plugins', () => {
  it('is empty by default (NamespaceLifecycle is always on)', () => {
    expect(parseServerFlags([], {}).enableAdmissionPlugins).toEqual([]);
  });

  it('takes a comma list of known plugins', () => {
    expect(parseServerFlags(['--enable-admission-plugins=NodeRestriction,NamespaceLifecycle'], {}).enableAdmissionPlugins).toEqual([
      'NodeRestriction',
      'NamespaceLifecycle',
    ]);
  });

  it('refuses unknown plugin names, naming them as kube does', () => {
    expect(() => parseServerFlags(['--enable-admission-plugins=NodeRestriction,AlwaysPullImages'], {})).toThrow(FlagError);
    expect(() => parseServerFlags(['--enable-admission-plugins=AlwaysPullImages'], {})).toThrow(
      /enable-admission-plugins plugin "AlwaysPullImages" is unknown/,
    );
  });
});
