import { commaList, flag, SECTION, strings, subsystem } from './flag';

/**
 * Admission plugins this server has, in the order the admission chain runs them (kube's
 * order); NamespaceLifecycle is on by default, as in kube. The chain holds cross-cutting
 * plugins only: RBAC's escalation check wraps the RBAC kinds' storages instead.
 */
export const ADMISSION_PLUGINS = ['NamespaceLifecycle', 'NodeRestriction'];

function admissionPlugins(value: string): string[] {
  const list = commaList(value);
  const unknown = list.filter((name) => !ADMISSION_PLUGINS.includes(name));
  if (unknown.length) throw new Error(unknown.map((name) => `enable-admission-plugins plugin "${name}" is unknown`).join(', '));
  return [...new Set(list)];
}

/** kube's AdmissionOptions. */
export const admission = subsystem({
  section: SECTION.admission,
  flags: {
    /** Plugins besides the default-on NamespaceLifecycle (e.g. NodeRestriction). */
    enableAdmissionPlugins: flag({
      name: 'enable-admission-plugins',
      ...strings(admissionPlugins),
      repeatable: false,
      default: [],
      usage: `Admission plugins to enable besides the always-on NamespaceLifecycle: ${ADMISSION_PLUGINS.join(', ')}.`,
    }),
  },
});
