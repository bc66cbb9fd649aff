import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReply } from '../../../core/rungs/parse-reply.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, PAPER_RUNS } from '../../paper-artifacts.js';

/*
 * Every stored R0 reply of the paper's runs (urn_* arms and the economic R0
 * cells) read again by our parser: the same decision, by the same rule, as the
 * authors' harness recorded ('tag', 'lead', 'scan'; 'default' is unresolved).
 * The tool rungs are re-read by `allocbench import` (test/importer).
 */

interface StoredTurn {
  readonly slot: number;
  readonly decision: string;
  readonly how: string;
  readonly reply: string;
}

function urnSessions(): { file: string; transcript: StoredTurn[] }[] {
  const arms = readdirSync(PAPER_RUNS)
    .filter((name) => name.startsWith('urn_') && !name.startsWith('urn_tool_'))
    .map((name) => join(PAPER_RUNS, name));
  const economic = join(PAPER_RUNS, 'economic_surface_haiku', 'R0');
  const cells = readdirSync(economic).flatMap((b) => readdirSync(join(economic, b)).map((k) => join(economic, b, k)));
  return [...arms, ...cells].flatMap((arm) =>
    readdirSync(arm)
      .filter((seed) => seed.startsWith('seed_'))
      .map((seed) => {
        const file = join(arm, seed, 'session.json');
        return { file, transcript: (JSON.parse(readFileSync(file, 'utf8')) as { transcript: StoredTurn[] }).transcript };
      }),
  );
}

describe.skipIf(!HAVE_PAPER_RUNS)(`the paper's stored R0 replies (${HAVE_PAPER_RUNS ? 'shared/paper-artifacts' : NO_PAPER_RUNS})`, () => {
  it('read to the stored decision by the stored rule, every one', () => {
    const mismatches: string[] = [];
    let turns = 0;
    for (const { file, transcript } of urnSessions()) {
      for (const turn of transcript) {
        turns++;
        const ours = parseReply('R0', { text: turn.reply, toolCalls: [] });
        const stored = turn.how === 'default' ? 'unresolved' : `${turn.decision === 'KEEP' ? 'commit' : 'pass'} by ${turn.how}`;
        const read = ours.resolved ? `${ours.action} by ${ours.how}` : 'unresolved';
        if (read !== stored) mismatches.push(`${file} slot ${turn.slot}: stored ${stored}, ours ${read}`);
      }
    }
    expect(turns).toBeGreaterThan(1000);
    expect(mismatches).toEqual([]);
  });
});
