import { AnyFlag, flagsOf, shownDefault } from '../options/flag';
import { SUBSYSTEMS } from '../options';

// kube-apiserver's --help, from the flags' declarations.

export const COMMAND = 'platform-authz-apiserver';
const DESCRIPTION = 'A Kubernetes-compatible authorization API server: RBAC objects, access reviews, authentication and authorization of every request.';

/** A declared flag with the --help section it is listed in. */
interface Listed {
  flag: AnyFlag;
  section: string;
}

/** Every flag, subsystem by subsystem, in the order declared. */
export function listed(): Listed[] {
  return SUBSYSTEMS.flatMap((s) => flagsOf(s.flags).map((flag) => ({ flag, section: flag.section ?? s.section })));
}

/** pflag's usage layout: `--name type   usage (default x)`, by section, names aligned. */
export function helpText(flags: Listed[]): string {
  const sections = new Map<string, Array<[string, string]>>();
  for (const { flag, section } of flags) {
    const term = `${flag.short ? `-${flag.short}, ` : '    '}--${flag.name}${flag.type === 'bool' ? '' : ` ${flag.type}`}`;
    const shown = shownDefault(flag);
    // A usage of several lines (the gate list) continues under the usage column, as pflag prints it.
    const usage = shown ? `${flag.usage} (default ${shown})` : flag.usage;
    sections.set(section, [...(sections.get(section) ?? []), [term, usage]]);
  }
  const lines = [DESCRIPTION, '', 'Usage:', `  ${COMMAND} [flags]`, ''];
  for (const [heading, rows] of sections) {
    const width = Math.max(...rows.map(([term]) => term.length));
    const indent = ' '.repeat(2 + width + 3);
    lines.push(heading, '', ...rows.map(([term, usage]) => `  ${term.padEnd(width)}   ${usage.split('\n').join(`\n${indent}`)}`), '');
  }
  return lines.join('\n');
}
