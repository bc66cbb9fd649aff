import { FAMILY_NAMES } from '../../core/families/family.js';
import { decodeClasses } from '../../core/session/compact-codes.js';
import type { LoadedSession } from '../load/load-runs.js';
import type { Table } from './table.js';

/**
 * The streams behind the analysis (§3.2: hot classes recur roughly 13–23
 * times, traps 1–6): over the distinct streams the sessions played, how often
 * a class of each role occurs in one stream, and how many trap classes are
 * never drawn at all.
 */
export function streamsTable(sessions: readonly LoadedSession[]): Table {
  const streams = new Map<string, LoadedSession>();
  for (const session of sessions) streams.set(session.summary.streamHash, streams.get(session.summary.streamHash) ?? session);
  const byRole = { hot: [] as number[], trap: [] as number[] };
  let undrawn = 0;
  for (const session of streams.values()) {
    const counts = new Array<number>(FAMILY_NAMES.length).fill(0);
    for (const classId of decodeClasses(session.classes)) counts[classId] = (counts[classId] ?? 0) + 1;
    counts.forEach((count, classId) => {
      const role = session.hot.includes(classId) ? 'hot' : 'trap';
      if (count === 0) undrawn++;
      else byRole[role].push(count);
    });
  }
  const row = (role: 'hot' | 'trap') => {
    const counts = [...byRole[role]].sort((a, b) => a - b);
    const median = counts.length === 0 ? null : ((counts[(counts.length - 1) >> 1] ?? 0) + (counts[counts.length >> 1] ?? 0)) / 2;
    return [role, streams.size, counts.length, counts[0] ?? null, median, counts.at(-1) ?? null, role === 'trap' ? undrawn : 0];
  };
  return {
    id: 'streams',
    title: 'The streams: occurrences per class',
    caption:
      'Over the distinct streams the analysed sessions played (by stream hash): per role, the classes that occur and how many times one occurs in its stream (minimum, median, maximum), and the classes never drawn.',
    columns: [
      { name: 'Role', format: 'text' },
      { name: 'Streams', format: 'integer' },
      { name: 'Classes drawn', format: 'integer' },
      { name: 'Occurrences min', format: 'integer' },
      { name: 'Occurrences median', format: 'fixed' },
      { name: 'Occurrences max', format: 'integer' },
      { name: 'Classes not drawn', format: 'integer' },
    ],
    rows: [row('hot'), row('trap')],
  };
}
