import { InitialSchema1700000000000 } from './1700000000000-InitialSchema';
import { BindingUsage1764000000000 } from './1764000000000-BindingUsage';
import { LeaderLeases1765000000000 } from './1765000000000-LeaderLeases';
import { RuleUsage1766033000000 } from './1766033000000-RuleUsage';
import { UsageRecorders1766040000000 } from './1766040000000-UsageRecorders';
import { ChangeAuthors1767000000000 } from './1767000000000-ChangeAuthors';
import { AccessChangeVias1768000000000 } from './1768000000000-AccessChangeVias';

/** Every migration, oldest first: the DataSource takes this list (no glob loading). */
export const ALL_MIGRATIONS = [
  InitialSchema1700000000000,
  BindingUsage1764000000000,
  LeaderLeases1765000000000,
  RuleUsage1766033000000,
  UsageRecorders1766040000000,
  ChangeAuthors1767000000000,
  AccessChangeVias1768000000000,
];
