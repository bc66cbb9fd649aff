import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { fromPaperStream } from '../core/stream/paper-stream.js';
import type { StreamConfig } from '../core/stream/stream-config.js';
import type { Stream } from '../core/stream/stream.js';
import { isUrnRung } from '../core/rungs/rung.js';
import { RESKINS, type Reskin } from '../core/rungs/vocabulary.js';
import { parseJsonExact } from '../run-store/json-files.js';
import type { SourceSettings } from '../run-store/provenance.js';
import { paperStreamPath } from '../run-store/stream-source.js';
import { AUTHORS_VOCABULARIES } from './arm-name.js';
import { importDecisionSession } from './decision-session.js';
import { relativeTo, rootOf, type FoundArm } from './find-arms.js';
import type { ImportedSession } from './imported-session.js';
import {
  paperDecisionSessionSchema,
  paperScriptSessionSchema,
  paperSettingsSchema,
  parseSourceJson,
  parseSourceJsonLines,
  readSourceFile,
  type PaperSettings,
  type SourceFile,
} from './paper-files.js';
import { importScriptSession } from './script-session.js';

export interface ImportedArm {
  readonly source: string;
  readonly dir: string;
  readonly settings: SourceSettings;
  readonly streamConfig: StreamConfig;
  readonly sessions: readonly ImportedSession[];
  /** SHA-256 of every file read, by path relative to the imported root. */
  readonly files: Readonly<Record<string, string>>;
  /** Seeds left out, one line each: the file that could not be read and why. */
  readonly skipped: readonly string[];
}

function reskinOf(vocab: string | null, where: string): Reskin {
  if (vocab === null) return 'ball';
  const reskin = AUTHORS_VOCABULARIES[vocab];
  if (!reskin)
    throw new InputError(
      `${where}: unknown vocabulary '${vocab}' (expected ${Object.keys(AUTHORS_VOCABULARIES).join(', ')}; ours are ${RESKINS.join(', ')})`,
    );
  return reskin;
}

const ANTHROPIC_MODEL = /claude|haiku|opus|sonnet/i;

/** One value all seeds agree on, or an error naming the field. */
function agreed<T>(values: readonly T[], field: string, where: string): T | undefined {
  const distinct = [...new Set(values.map((value) => JSON.stringify(value)))];
  if (distinct.length > 1) throw new InputError(`${where}: seeds disagree on ${field} (${distinct.join(', ')})`);
  return values[0];
}

/**
 * The session file of a seed folder. A missing one is a seed the authors'
 * harness did not finish: it writes no R3 sessions.jsonl when a call fails,
 * and an economic session it stopped goes to partial_session.json.
 */
function sessionFileOf(seedDir: string, rung: string): string {
  const path = join(seedDir, rung === 'R3' ? 'sessions.jsonl' : 'session.json');
  if (existsSync(path)) return path;
  const partial = existsSync(join(seedDir, 'partial_session.json'));
  throw new InputError(
    `${path}: missing${partial ? " (only partial_session.json: the authors' harness stopped this session early)" : " (the authors' harness did not finish this seed)"}`,
  );
}

/**
 * Reads every seed of an arm: its stream, its session file and its settings.
 * A seed whose files are missing, unreadable, truncated or unexpected is left
 * out with one line naming the file; an arm with no seed left is one InputError.
 */
export async function readArm(arm: FoundArm): Promise<ImportedArm> {
  const root = rootOf(arm);
  const files: Record<string, string> = {};
  const streams = new Map<string, Stream>();
  const read = async (path: string): Promise<SourceFile> => {
    const file = await readSourceFile(path);
    files[relativeTo(root, path)] = file.sha256;
    return file;
  };
  const optionalSettings = async (path: string): Promise<PaperSettings> =>
    existsSync(path) ? parseSourceJson(await read(path), paperSettingsSchema, 'a settings object') : {};

  const { name } = arm;
  const rung = name.rung;
  const sessions: ImportedSession[] = [];
  const perSeed: {
    settings: PaperSettings;
    vocab: string | null;
    toolChoice: string | null;
    budget: number;
    charge: number;
    tokenCap: number | null;
  }[] = [];
  const skipped: string[] = [];
  for (const seed of arm.seeds) {
    try {
      const seedDir = join(arm.dir, `seed_${seed}`);
      const streamFile = await read(paperStreamPath(arm.dir, seed));
      let stream = streams.get(streamFile.sha256);
      if (!stream) {
        try {
          stream = fromPaperStream(seed, parseJsonExact(streamFile.text));
        } catch (error) {
          throw new InputError(`${streamFile.path}: ${(error as Error).message.split('\n')[0]}`);
        }
        streams.set(streamFile.sha256, stream);
      }
      const settings = {
        ...(await optionalSettings(join(seedDir, 'meta.json'))),
        ...(await optionalSettings(join(seedDir, 'config.json'))),
      };
      const provider = settings.provider ?? null;
      if (rung === 'R3') {
        const file = await read(sessionFileOf(seedDir, rung));
        const lines = parseSourceJsonLines(file, paperScriptSessionSchema, "the paper's R3 sessions.jsonl (one session object per line)");
        const matching = name.modelToken === null ? lines : lines.filter((line) => line.model_key.replaceAll(':', '_') === name.modelToken);
        if (matching.length !== 1) {
          throw new InputError(`${file.path}: ${matching.length} sessions for this arm's model (expected exactly one line)`);
        }
        const session = matching[0] as (typeof lines)[number];
        const anthropic = (session.provider ?? provider) === 'anthropic' || ANTHROPIC_MODEL.test(session.model_key);
        sessions.push(importScriptSession(session, stream, { path: file.path, seed, anthropic }));
        perSeed.push({
          settings: {
            ...settings,
            provider: session.provider ?? provider ?? undefined,
            resolved_model: session.resolved_model ?? settings.resolved_model ?? session.model,
          },
          vocab: null,
          toolChoice: settings.tool_choice ?? null,
          budget: session.budget,
          charge: 0,
          tokenCap: session.token_cap ?? null,
        });
      } else {
        const file = await read(sessionFileOf(seedDir, rung));
        const session = parseSourceJson(
          file,
          paperDecisionSessionSchema,
          "the paper's R0–R2 session.json (seed, model_key, budget, transcript, turn_usages)",
        );
        if (session.seed !== seed) throw new InputError(`${file.path}: seed ${session.seed} in a seed_${seed} folder`);
        const cell = { ...settings, ...session.config };
        const charge = name.charge ?? session.K ?? cell.K ?? 0;
        const anthropic = (session.provider ?? cell.provider) === 'anthropic' || ANTHROPIC_MODEL.test(session.model_key);
        const efr = name.emptyRetries ?? 0;
        sessions.push(importDecisionSession(session, stream, { rung, path: file.path, charge, anthropic, callsPerTurn: Math.max(1, efr) }));
        perSeed.push({
          settings: { ...cell, provider: session.provider ?? cell.provider, resolved_model: session.resolved_model ?? cell.resolved_model },
          vocab: session.vocab ?? null,
          toolChoice: session.tool_choice ?? cell.tool_choice ?? null,
          budget: name.budget ?? session.budget,
          charge,
          tokenCap: null,
        });
      }
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      skipped.push(error.message);
    }
  }
  if (sessions.length === 0) throw new InputError(`${arm.dir}: no seed could be read (${skipped[0] ?? 'no seeds'})`);

  const where = arm.dir;
  const model = agreed(
    sessions.map((s) => s.modelKey),
    'model_key',
    where,
  ) as string;
  if (name.modelToken !== null && name.modelToken !== model.replaceAll(':', '_')) {
    throw new InputError(`${where}: model_key '${model}' is not the arm name's model '${name.modelToken}'`);
  }
  // Urn sessions from before the reskins name no vocabulary: theirs is the ball urn.
  const vocab = agreed(
    perSeed.map((s) => s.vocab ?? name.vocab ?? 'ball'),
    'vocab',
    where,
  ) as string;
  const announced = perSeed.map((s) => s.settings.announce_n).find((value) => value !== undefined);
  const streamConfig = agreed(
    sessions.map((s) => s.stream.config),
    'the stream settings',
    where,
  ) as StreamConfig;
  const first = perSeed[0]?.settings ?? {};
  const settings: SourceSettings = {
    model,
    rung,
    reskin: isUrnRung(rung) ? reskinOf(vocab, where) : null,
    announceN: name.announceN ?? announced ?? false,
    budget: agreed(
      perSeed.map((s) => s.budget),
      'budget',
      where,
    ) as number,
    charge: agreed(
      perSeed.map((s) => s.charge),
      'K',
      where,
    ) as number,
    magnitude: streamConfig.magnitude,
    emptyRetries: name.emptyRetries ?? 0,
    protocol:
      rung === 'R3'
        ? (first.benchmark_version ?? (name.classBound ? `class-bound-${name.classBound}` : (first.tool_schema_version ?? null)))
        : null,
    provider: first.provider ?? null,
    resolvedModel: first.resolved_model ?? null,
    toolChoice: perSeed[0]?.toolChoice ?? null,
    tokenCap:
      agreed(
        perSeed.map((s) => s.tokenCap),
        'token_cap',
        where,
      ) ?? null,
    unitCap: first.unit_cap_usd ?? null,
    runCap: first.global_cap_usd ?? null,
    r3End: rung !== 'R3' ? null : name.classBound !== null || first.collection_kind === 'publication' ? 'budget-exhausted' : 'stream-end',
    variants: name.variants,
  };
  if (name.magnitude !== null && name.magnitude !== settings.magnitude) {
    throw new InputError(`${where}: the name says magnitude ${name.magnitude} but the streams have ${settings.magnitude}`);
  }
  return { source: arm.source, dir: arm.dir, settings, streamConfig, sessions, files, skipped };
}
