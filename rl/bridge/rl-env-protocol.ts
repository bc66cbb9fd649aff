import { z } from 'zod';
import { InputError } from '../../core/errors.js';
import { FAMILY_NAMES } from '../../core/families/family.js';
import { commitAtK } from '../../core/policies/commit-at-k.js';
import {
  episodeMetrics,
  pendingDecision,
  startEpisode,
  stepEpisode,
  type Episode,
  type PendingDecision,
} from '../../core/rl/rl-episode.js';
import { FEATURE_NAMES } from '../../core/rl/decision-features.js';
import { RESKINS } from '../../core/rungs/vocabulary.js';
import { sessionMetrics } from '../../core/metrics/session-metrics.js';
import { runSession } from '../../core/session/run-session.js';
import { generateStream } from '../../core/stream/generate-stream.js';
import { parseStreamConfig } from '../../core/stream/stream-config.js';
import { classSequence, type Stream } from '../../core/stream/stream.js';
import { parseOrThrow } from '../../core/validation.js';

/*
 * `allocbench rl-env`: the reinforcement-learning study's environment as a
 * process a trainer drives over JSON lines on stdio, one request per line and
 * one answer per line, in order. The rules stay here, in the core: streams
 * from our generator, the harness's prompts and reply reading
 * (core/rl/rl-episode.ts); the trainer only generates replies and learns.
 *
 *   {"op":"reset","episodes":[{"id","seed","rung","budget","length","announceN","reskin","toolChoice"}]}
 *       → {"ok":true,"features":[names],"decisions":[Decision]}   one per episode, in order; the names of
 *         the critic's features in the order a Decision's `features` object lists them
 *   {"op":"step","replies":[{"id","text","toolCalls":[{"id","name","arguments"}]}]}
 *       → {"ok":true,"results":[{"id","reading","reward","next":Decision}]}
 *         (a reply at a tool rung without calls has any call left in its text recovered, as for a local model)
 *   {"op":"baselines","seeds":[…],"budget","length"}
 *       → {"ok":true,"eager":…,"waitOneRepeat":…}   mean items per stream of the two heuristics
 *   {"op":"close","ids":[…]} → {"ok":true}
 *
 * A Decision is {"id","done":false, system, tools, toolChoice, messages,
 * candidates, t, classId, occurrence, role, features} while the episode
 * waits for a reply, and {"id","done":true,"items","commitments",
 * "firstSightCommitments"} once it is over. Any bad request gets
 * {"ok":false,"error":"<one line>"} and changes nothing.
 */

const episodeRequest = z.strictObject({
  id: z.string().min(1),
  seed: z.number().int().min(0),
  rung: z.enum(['R0', 'probe', 'R1', 'R2']),
  budget: z.number().int().min(1).max(FAMILY_NAMES.length).default(3),
  length: z.number().int().min(1).max(10_000).default(60),
  announceN: z.boolean().default(true),
  reskin: z.enum(RESKINS).default('ball'),
  toolChoice: z.enum(['auto', 'required']).default('required'),
});

const toolCall = z.strictObject({ id: z.string().default('call_0'), name: z.string(), arguments: z.string().default('{}') });

const request = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('reset'), episodes: z.array(episodeRequest).min(1) }),
  z.strictObject({
    op: z.literal('step'),
    replies: z.array(z.strictObject({ id: z.string(), text: z.string().default(''), toolCalls: z.array(toolCall).default([]) })).min(1),
  }),
  z.strictObject({
    op: z.literal('baselines'),
    seeds: z.array(z.number().int().min(0)).min(1),
    budget: z.number().int().min(1).max(FAMILY_NAMES.length).default(3),
    length: z.number().int().min(1).max(10_000).default(60),
  }),
  z.strictObject({ op: z.literal('close'), ids: z.array(z.string()) }),
]);

type Decision =
  | ({ readonly id: string; readonly done: false } & PendingDecision)
  | ({ readonly id: string; readonly done: true } & Outcome);

interface Outcome {
  readonly items: number;
  readonly commitments: number;
  readonly firstSightCommitments: number;
}

/** The paper's generator at a stream length and budget (its trap window is the budget). */
const streamOf = (seed: number, length: number, budget: number): Stream =>
  generateStream(seed, parseStreamConfig({ length, budget: Math.min(budget, length) }));

function outcome(episode: Episode): Outcome {
  const metrics = episodeMetrics(episode);
  return { items: metrics.utility, commitments: metrics.commitments, firstSightCommitments: metrics.firstSightCommitments };
}

export class RlEnvironment {
  private readonly episodes = new Map<string, Episode>();

  /** Answers one request line; never throws for bad input (the answer says why, and nothing changes). */
  handle(line: string): string {
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new InputError('request: not JSON');
      }
      return JSON.stringify({ ok: true, ...this.answer(parseOrThrow(request, raw, 'request')) });
    } catch (error) {
      const message = error instanceof InputError ? error.message : `internal error: ${(error as Error).message}`;
      return JSON.stringify({ ok: false, error: message.split('\n').join('; ') });
    }
  }

  private answer(r: z.output<typeof request>): Record<string, unknown> {
    switch (r.op) {
      case 'reset': {
        const ids = r.episodes.map((e) => e.id);
        if (new Set(ids).size !== ids.length) throw new InputError('reset: an episode id appears twice');
        const opened = r.episodes.map((e) => {
          const stream = streamOf(e.seed, e.length, e.budget);
          return [e.id, startEpisode(e, stream)] as const;
        });
        for (const [id, episode] of opened) this.episodes.set(id, episode);
        return { features: FEATURE_NAMES, decisions: opened.map(([id, episode]) => this.decision(id, episode)) };
      }
      case 'step': {
        const missing = r.replies.find((reply) => !this.episodes.has(reply.id));
        if (missing) throw new InputError(`step: no open episode ${missing.id}`);
        const over = r.replies.find((reply) => pendingDecision(this.episodes.get(reply.id) as Episode) === null);
        if (over) throw new InputError(`step: episode ${over.id} is over`);
        const results = r.replies.map((reply) => {
          const step = stepEpisode(this.episodes.get(reply.id) as Episode, { text: reply.text, toolCalls: reply.toolCalls });
          this.episodes.set(reply.id, step.episode);
          return { id: reply.id, reading: step.reading, reward: step.reward, next: this.decision(reply.id, step.episode) };
        });
        return { results };
      }
      case 'baselines': {
        const mean = (k: number) =>
          r.seeds.reduce((sum, seed) => {
            const classes = classSequence(streamOf(seed, r.length, r.budget));
            const setting = { budget: r.budget, charge: 0, classCount: FAMILY_NAMES.length };
            return sum + sessionMetrics(runSession(classes, setting, commitAtK(k))).utility;
          }, 0) / r.seeds.length;
        return { eager: mean(1), waitOneRepeat: mean(2) };
      }
      case 'close':
        for (const id of r.ids) this.episodes.delete(id);
        return {};
    }
  }

  private decision(id: string, episode: Episode): Decision {
    const pending = pendingDecision(episode);
    return pending ? { id, done: false, ...pending } : { id, done: true, ...outcome(episode) };
  }
}
