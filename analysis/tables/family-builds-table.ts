import { FAMILY_NAMES } from '../../core/families/family.js';
import { armLabel, varyingFields, type Arm } from '../arms.js';
import type { Cell, Table } from './table.js';

/**
 * Commitments per problem family at each R3 arm (D.4: Josephus, the family a
 * model can solve by hand, is 7 of Opus's 72 builds in both magnitude arms,
 * all at first sight): which hidden families the builds went to, and how many
 * of them at the family's first occurrence.
 */
export function familyBuildsTable(arms: readonly Arm[]): Table {
  const r3 = arms.filter((arm) => arm.key.rung === 'R3');
  const varies = varyingFields(r3.map((arm) => arm.key));
  return {
    id: 'r3-family-builds',
    title: 'R3: builds per problem family',
    caption:
      'Per R3 arm and family: the commitments (classes with a script authored on them, summed over seeds) and, in parentheses, those made at the class’s first occurrence; the last column is every family together.',
    columns: [{ name: 'Arm', format: 'text' }, ...[...FAMILY_NAMES, 'all'].map((name) => ({ name, format: 'text' as const }))],
    rows: r3.map((arm) => {
      const builds = FAMILY_NAMES.map(() => ({ all: 0, firstSight: 0 }));
      for (const session of arm.loaded) {
        for (const decision of session.summary.decisions) {
          if (decision.action !== 'commit') continue;
          const family = builds[decision.classId];
          if (!family) continue;
          family.all++;
          if (decision.occurrence === 1) family.firstSight++;
        }
      }
      const cell = ({ all, firstSight }: { all: number; firstSight: number }): Cell => `${all} (${firstSight})`;
      const total = builds.reduce((sum, b) => ({ all: sum.all + b.all, firstSight: sum.firstSight + b.firstSight }), {
        all: 0,
        firstSight: 0,
      });
      return [armLabel(arm.key, varies), ...builds.map(cell), cell(total)];
    }),
  };
}
