import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../../core/errors.js';
import { sessionDirName, sessionKey } from '../../core/sweep/session-spec.js';
import { CorruptRunDataError } from '../../run-store/corrupt-data.js';
import { openRunStore } from '../../run-store/open-run-store.js';
import type { TranscriptRecord } from '../../run-store/transcript.js';
import type { Stream } from '../../core/stream/stream.js';
import { groupArms, type Arm } from '../arms.js';
import { withOnlineOptima } from '../online-optimum.js';
import { bayesComparators, type Comparator } from '../bayes-comparator.js';
import { defaultCacheDir, type CacheOptions } from '../stream-values-cache.js';
import {
  coreFirstSightSpec,
  economicSpec,
  ladderSpec,
  optimalPolicySpec,
  renderFigure,
  scoreSpec,
  transferSpec,
} from '../figures/index.js';
import { ladders, LADDER_RUNGS, type Ladder } from '../ladders.js';
import { pairSeeds } from '../stats/seed-session.js';
import { loadRuns, type Exclusion, type LoadedRuns, type LoadedSession } from '../load/load-runs.js';
import { streamsTable } from '../tables/streams-table.js';
import { isTrainingDir, loadTraining, type TrainingRun } from '../load/load-training.js';
import { trainingCurvesSpec } from '../figures/training-curves.js';
import { cellDiagnosticsTable, cellTable, perSeedTable, scriptTable } from '../tables/cell-tables.js';
import { decisionRulesTable } from '../tables/decision-rules-table.js';
import { economicInteractionTable, economicSurfaceTable } from '../tables/economic-tables.js';
import { familyBuildsTable } from '../tables/family-builds-table.js';
import { splitTable } from '../tables/split-table.js';
import { framingLadderTable, onlineScoreTable, pairedLadderTable, scoreTable, zeroCommitTable } from '../tables/ladder-tables.js';
import { toHtml } from '../tables/render-table.js';
import { transferTable } from '../tables/transfer-table.js';
import { idPart, type Table } from '../tables/table.js';
import { writeTableFiles } from '../tables/write-table-files.js';
import { coreFirstSightData, economicData, ladderData, optimalPolicyData, scoreData, transferData } from './figure-data.js';
import { escapeHtml, page } from './html.js';
import { transcriptPage } from './transcript-page.js';

export interface ReportSummary {
  readonly outDir: string;
  readonly sessions: number;
  /** The ids of every table written, the per-seed table last. */
  readonly tables: readonly string[];
  /** The same tables as data (analyze --json). */
  readonly tableData: readonly Table[];
  readonly figures: readonly string[];
  readonly exclusions: number;
  /** What was left out, and why (exclusions.md). */
  readonly excluded: readonly Exclusion[];
}

interface Figure {
  readonly id: string;
  readonly caption: string;
  readonly spec: Parameters<typeof renderFigure>[0];
}

/** Models with the reinforcement-learning study's extra panels (reskins, the probe): each gets its transfer ladder (Table F). */
function transferModels(arms: readonly Arm[]): string[] {
  const extra = arms.filter(
    (arm) => arm.key.rung === 'probe' || (arm.key.rung === 'R0' && arm.key.reskin !== null && arm.key.reskin !== 'ball'),
  );
  return [...new Set(extra.map((arm) => arm.key.model))];
}

/**
 * The RL study's checkpoints beside their base (Table F, Figure 4): the models
 * run on the urn's reskins (a probe arm alone, as Haiku's, is not one), A the
 * base (by name, else the first by name), B each other one.
 */
function checkpointPairs(arms: readonly Arm[]): { a: string; b: string }[] {
  const reskinned = (model: string) =>
    arms.some((arm) => arm.key.model === model && arm.key.rung === 'R0' && arm.key.reskin !== null && arm.key.reskin !== 'ball');
  const models = transferModels(arms).filter(reskinned).sort();
  const base = models.find((model) => /base/i.test(model)) ?? models[0];
  return base === undefined ? [] : models.filter((model) => model !== base).map((b) => ({ a: base, b }));
}

/** A transfer table of A against B, where the two share a framing (else none). */
function pairedTransfer(arms: readonly Arm[], a: string, b: string): Table[] {
  try {
    return [transferTable(arms, a, b)];
  } catch (error) {
    if (error instanceof InputError) return [];
    throw error;
  }
}

function tablesOf(
  sessions: readonly LoadedSession[],
  arms: readonly Arm[],
  list: readonly Ladder[],
  comparators: ReadonlyMap<Arm, Comparator>,
): Table[] {
  const hasR3 = arms.some((arm) => arm.key.rung === 'R3');
  const economic = economicSurfaceTable(arms);
  const interaction = economicInteractionTable(arms);
  return [
    ...(list.length > 0
      ? [
          framingLadderTable(list),
          pairedLadderTable(list),
          zeroCommitTable(list),
          scoreTable(list),
          onlineScoreTable(list),
          decisionRulesTable(list, comparators),
        ]
      : []),
    cellTable(arms),
    cellDiagnosticsTable(arms),
    streamsTable(sessions),
    ...(hasR3 ? [scriptTable(arms), familyBuildsTable(arms)] : []),
    ...(arms.some((arm) => arm.key.builder !== null) ? [splitTable(arms)] : []),
    ...(economic.rows.length > 0 ? [economic] : []),
    ...(interaction.rows.length > 0 ? [interaction] : []),
    ...transferModels(arms).map((model) => transferTable(arms, model)),
    ...checkpointPairs(arms).flatMap(({ a, b }) => pairedTransfer(arms, a, b)),
  ];
}

/** A loaded session's stream, which loadRuns has read and checked already. */
async function streamOf(session: LoadedSession): Promise<Stream> {
  const stream = await openRunStore(session.runDir).readStream(session.spec.seed);
  if (!stream) throw new Error(`${session.runDir}: the stream of seed ${session.spec.seed} is gone`);
  return stream;
}

async function figuresOf(loaded: LoadedRuns, arms: readonly Arm[], list: readonly Ladder[]): Promise<Figure[]> {
  const first = [...loaded.sessions].sort((a, b) => a.spec.seed - b.spec.seed)[0];
  const figures: Figure[] = [];
  if (first) {
    figures.push({
      id: 'optimal-policy',
      caption: `Defer-then-confirm on seed ${first.spec.seed}'s first 15 items: pass on first sight, build on confirmed recurrence (B = ${first.spec.budget}).`,
      spec: optimalPolicySpec(optimalPolicyData(await streamOf(first), first.spec.budget)),
    });
  }
  const core = coreFirstSightData(list);
  if (core.length > 0)
    figures.push({
      id: 'r0-vs-r3',
      caption:
        'First-sight commitment at R0 and R3 per model: thin lines pair seeds, set side by side where their rates coincide; large points are pooled rates with 95% seed-bootstrap intervals, joined by a bold line; open circles mark seeds that commit at R0 but build no script at R3.',
      spec: coreFirstSightSpec(core),
    });
  const scores = scoreData(list);
  if (scores.length > 0)
    figures.push({
      id: 'score-r0-vs-r2',
      caption: 'Score at R0 against R2 per model, with the rectangle spanned by both 95% intervals and the diagonal.',
      spec: scoreSpec(scores),
    });
  const ladder = ladderData(list);
  if (ladder.models.length > 0)
    figures.push({
      id: 'ladder',
      caption: 'Pooled first-sight commitment by rung per model, with 95% seed-bootstrap intervals.',
      spec: ladderSpec(ladder),
    });
  for (const { a, b } of checkpointPairs(arms)) {
    const data = transferData(arms, a, b);
    if (data)
      figures.push({
        id: `transfer-${idPart(b)}`,
        caption: `First-sight commitment of ${a} (A) and ${b} (B) from the abstract urn to R3, each pooled over realized commitments with its 95% seed-bootstrap interval. Shaded panels are those where B commits at first sight significantly less than A (more reserve): the paired B − A interval, re-pooled ratios with seeds resampled as clusters, lies wholly below zero.`,
        spec: transferSpec(data),
      });
  }
  const economic = economicData(arms);
  if (economic.length > 0)
    figures.push({
      id: 'economic-hazard',
      caption: "First-sight hazard against the visible charge K per budget B, with the hindsight optimum's hazard.",
      spec: economicSpec(economic),
    });
  return figures;
}

/** Figure 6: every training run's curve in one figure, the GRPO pilots in grey. */
function trainingFigures(runs: readonly TrainingRun[]): Figure[] {
  const curves = runs
    .filter((run) => run.steps.length > 0)
    .map((run) => ({
      name: run.name,
      pilot: run.algorithm === 'grpo',
      steps: run.steps.map((s) => ({
        step: s.step,
        reward: s.meanReward,
        firstSight: s.firstSight,
        eager: s.heuristics.eager,
        waitOneRepeat: s.heuristics.waitOneRepeat,
      })),
    }));
  if (curves.length === 0) return [];
  return [
    {
      id: 'training-curves',
      caption:
        'Training curves: left, mean training reward (items collected) per outer step for each run (GRPO pilots in grey) beside the eager and wait-for-one-repeat heuristics on the same training streams (dashed); right, first-sight commitment on each run’s own training rollouts, at the sampling temperature.',
      spec: trainingCurvesSpec(curves),
    },
  ];
}

/** Where a ladder's rungs could not be paired on some seed (different streams), or were paired on the class sequence alone. */
function pairingNotes(list: readonly Ladder[]): Exclusion[] {
  return list.flatMap((ladder) => {
    const present = LADDER_RUNGS.filter((rung) => ladder.rungs[rung]);
    return present.flatMap((from, i) =>
      present.slice(i + 1).flatMap((to) => {
        const pairing = pairSeeds(ladder.rungs[from]?.sessions ?? [], ladder.rungs[to]?.sessions ?? []);
        const what = `${ladder.key.model}: ${from} with ${to}`;
        return [
          ...(pairing.refused.length > 0
            ? [{ what, reason: `pairing refused on seeds ${pairing.refused.join(', ')}: the two arms played different streams` }]
            : []),
          ...(pairing.latentOnly.length > 0
            ? [
                {
                  what,
                  reason: `seeds ${pairing.latentOnly.join(', ')} paired on the same class sequence although some items were rendered differently`,
                },
              ]
            : []),
        ];
      }),
    );
  });
}

const transcriptFile = (runName: string, dir: string) => `${runName}__${dir}.html`;

/**
 * `allocbench analyze`: the paper's tables (Markdown, CSV, LaTeX), figures
 * (SVG, PNG) and an offline index.html linking a readable view of every
 * session's transcript. What was left out, and why, is written next to them.
 * `cache` says where the values computed from the sessions' streams are kept
 * (policy/optimal's nets, the online Score's denominator; what policy/bayes
 * collects, the competence gate's comparator).
 */
export async function writeReport(
  dirs: readonly string[],
  outDir: string,
  cache: CacheOptions = { cacheDir: defaultCacheDir() },
): Promise<ReportSummary> {
  // Training runs of the RL study (rl/) give their curves; every other directory is a run directory, or holds some.
  const trainingExclusions: Exclusion[] = [];
  const training = (await Promise.all(dirs.filter(isTrainingDir).map((dir) => loadTraining(dir, trainingExclusions)))).flatMap((run) =>
    run ? [run] : [],
  );
  const runDirs = dirs.filter((dir) => !isTrainingDir(dir));
  const read = runDirs.length > 0 ? await loadRuns(runDirs) : { runs: [], sessions: [], exclusions: [] };
  const measured = await withOnlineOptima(read.sessions, cache);
  const unsolved = measured.unsolved.map((u) => ({
    what: `online Score of ${u.sessions} sessions at ${u.setting}`,
    reason: `policy/optimal's table is out of reach (${u.reason})`,
  }));
  const loaded = { ...read, sessions: measured.sessions, exclusions: [...read.exclusions, ...unsolved] };
  // A run whose every session was left out still gets its report: the exclusions say why, and what brings them in.
  if (loaded.runs.length === 0 && training.length === 0) {
    const why = [...loaded.exclusions, ...trainingExclusions]
      .slice(0, 3)
      .map((e) => `${e.what}: ${e.reason}`)
      .join('; ');
    throw new InputError(`nothing to analyze in ${dirs.join(', ')}${why ? ` (${why}${loaded.exclusions.length > 3 ? '; …' : ''})` : ''}`);
  }
  for (const sub of ['tables', 'figures', 'sessions']) await mkdir(join(outDir, sub), { recursive: true });
  const arms = groupArms(loaded.sessions);
  const list = ladders(arms);
  const tables = loaded.sessions.length > 0 ? tablesOf(loaded.sessions, arms, list, await bayesComparators(list, cache)) : [];
  // The per-seed table is long: written as files and linked, not shown on the page.
  const perSeed = loaded.sessions.length > 0 ? perSeedTable(arms) : null;
  for (const table of perSeed ? [...tables, perSeed] : tables) await writeTableFiles(join(outDir, 'tables'), table);
  const figures = [...(loaded.sessions.length > 0 ? await figuresOf(loaded, arms, list) : []), ...trainingFigures(training)];
  for (const figure of figures) {
    const { svg, png } = await renderFigure(figure.spec);
    await writeFile(join(outDir, 'figures', `${figure.id}.svg`), svg);
    await writeFile(join(outDir, 'figures', `${figure.id}.png`), png);
  }
  const excluded = [...loaded.exclusions, ...trainingExclusions, ...pairingNotes(list)];
  const exclusions = excluded.map((e) => `- ${e.what}: ${e.reason}`).join('\n');
  await writeFile(join(outDir, 'exclusions.md'), `# Excluded from the analysis\n\n${exclusions || 'Nothing.'}\n`);
  const links: string[] = [];
  for (const session of loaded.sessions) {
    const file = transcriptFile(session.runName, sessionDirName(session.spec));
    const records = await openRunStore(session.runDir)
      .readTranscriptRecords(session.spec)
      .catch((error: unknown): TranscriptRecord[] => {
        // A transcript that cannot be read does not take the report down: its page says which, in one line.
        if (!(error instanceof CorruptRunDataError)) throw error;
        process.stderr.write(`allocbench: ${error.message}\n`);
        return [];
      });
    await writeFile(join(outDir, 'sessions', file), transcriptPage(`${session.runName}: ${sessionKey(session.spec)}`, records));
    links.push(
      `<li><a href="sessions/${escapeHtml(file)}">${escapeHtml(`${session.runName}: ${sessionKey(session.spec)}`)}</a> (${escapeHtml(session.summary.termination)})</li>`,
    );
  }
  const body = [
    '<h1>AllocBench report</h1>',
    `<p>${loaded.sessions.length} sessions from ${loaded.runs.map((run) => `${escapeHtml(run.name)} (${run.finished}/${run.sessions} finished, ${escapeHtml(run.runDir)})`).join(', ') || 'no run directory'}${training.length > 0 ? `; training runs ${training.map((run) => `${escapeHtml(run.name)} (${run.algorithm}, ${run.steps.length} steps, ${escapeHtml(run.dir)})`).join(', ')}` : ''}.</p>`,
    '<h2>Figures</h2>',
    ...figures.map(
      (f) =>
        `<figure id="figure-${f.id}"><img src="figures/${f.id}.svg" alt="${escapeHtml(f.caption)}"><figcaption>${escapeHtml(f.caption)} <a href="figures/${f.id}.png">PNG</a></figcaption></figure>`,
    ),
    '<h2>Tables</h2>',
    perSeed
      ? `<p>Per-seed estimands of every session: <a href="tables/${perSeed.id}.csv">CSV</a> · <a href="tables/${perSeed.id}.md">Markdown</a> · <a href="tables/${perSeed.id}.tex">LaTeX</a></p>`
      : '',
    ...tables.map(
      (table) =>
        `${toHtml(table)}\n<p>Files: <a href="tables/${table.id}.md">Markdown</a> · <a href="tables/${table.id}.csv">CSV</a> · <a href="tables/${table.id}.tex">LaTeX</a></p>`,
    ),
    `<h2>Excluded (${excluded.length})</h2>`,
    excluded.length > 0
      ? `<ul>${excluded.map((e) => `<li>${escapeHtml(e.what)}: ${escapeHtml(e.reason)}</li>`).join('')}</ul>`
      : '<p>Nothing was excluded.</p>',
    '<h2>Sessions</h2>',
    `<ul>${links.join('\n')}</ul>`,
  ].join('\n');
  await writeFile(join(outDir, 'index.html'), page('AllocBench report', body));
  return {
    outDir,
    sessions: loaded.sessions.length,
    tables: [...tables.map((t) => t.id), ...(perSeed ? [perSeed.id] : [])],
    tableData: perSeed ? [...tables, perSeed] : tables,
    figures: figures.map((f) => f.id),
    exclusions: excluded.length,
    excluded,
  };
}
