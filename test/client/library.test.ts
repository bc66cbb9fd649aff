import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cancelSweep, defineSweep, estimateSweep, runStatus, runSweep, type SweepProgress } from 'allocbench';
import { serverForThisFile } from '../temporal/harness.js';

/*
 * The library entry as a researcher's own TypeScript program imports it (the
 * package's name, its types from the build): define a sweep, price it, run it
 * on a Temporal server while following its progress, read where it stands, and
 * cancel a run with nothing running (nothing to cancel). The command calls the
 * same functions.
 */

const temporal = serverForThisFile();

describe("the library entry, import { runSweep } from 'allocbench'", () => {
  it('defines, prices, runs, follows and reads a sweep as the command does', async () => {
    const sweep = defineSweep({ name: 'library', models: ['policy/commit-at-2'], rungs: ['R0', 'R1'], seeds: [2000, 2001] });
    expect((await estimateSweep(sweep)).map((cell) => [cell.rung, cell.sessions])).toEqual([
      ['R0', 2],
      ['R1', 2],
    ]);
    // Every problem a line of one error, and nothing starts.
    expect(() => defineSweep({ name: 'library', models: ['nobody/model'], rungs: ['R9'] })).toThrow(
      /^sweep\.rungs\.0: Invalid option: .*\nsweep\.models\.0: model 'nobody\/model': unknown provider 'nobody'/,
    );

    process.env.TEMPORAL_ADDRESS = temporal.server.address;
    process.env.TEMPORAL_NAMESPACE = temporal.server.namespace;
    const seen: SweepProgress[] = [];
    const out = join(temporal.dir, 'library');
    const outcome = await runSweep(sweep, { out, onProgress: (progress) => seen.push(progress) });
    expect(outcome.unfinished).toEqual([]);
    expect(outcome.results.states.finished).toBe(4);
    expect(outcome.results.cells.map((cell) => `${cell.rung} ${cell.finished}/${cell.sessions}`)).toEqual(['R0 2/2', 'R1 2/2']);
    expect(seen.at(-1)).toMatchObject({ total: 4, finished: 4 });

    const [status] = await runStatus([outcome.runDir]);
    expect(status).toMatchObject({ name: 'library', total: 4, finished: 4, inFlight: 0, runBy: null });
    expect(await cancelSweep(outcome.runDir)).toMatchObject({ sweep: false, sessions: 0, states: { finished: 4 } });
  });
});
