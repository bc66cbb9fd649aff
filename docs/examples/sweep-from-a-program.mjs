// A sweep run from a program through AllocBench's library API (docs/library.md): two reference
// policies at R1 on four seeds, on the embedded Temporal server, then one line per cell.
import { defineSweep, runSweep } from 'allocbench';

const sweep = defineSweep({
  name: 'from-a-program',
  models: ['policy/bayes', 'policy/commit-at-2'],
  rungs: ['R1'],
  seeds: '2000-2003',
  announceN: [true],
});
const outcome = await runSweep(sweep, { out: process.argv[2] ?? 'runs/from-a-program' });

for (const cell of outcome.results.cells) {
  const score = cell.pooled === null ? '–' : `${(100 * cell.pooled.score).toFixed(1)}%`;
  console.log(`${cell.model} ${cell.rung}: Score ${score} over ${cell.finished}/${cell.sessions} sessions`);
}
for (const session of outcome.unfinished) console.log(`not finished: ${session.spec.seed} (${session.state})`);
console.log(`${outcome.results.states.finished}/${outcome.results.total} sessions finished`);
