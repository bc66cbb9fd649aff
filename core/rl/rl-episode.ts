import type { ChatMessage, ModelReply, ToolSpec } from '../chat/messages.js';
import { conversation, type Exchange } from '../chat/conversation.js';
import { recoverToolCalls } from '../chat/recover-tool-calls.js';
import { FAMILY_NAMES } from '../families/family.js';
import type { Framing } from '../rungs/framing.js';
import { parseReply, type ParsedDecision } from '../rungs/parse-reply.js';
import type { DecisionRung } from '../rungs/rung.js';
import { systemPrompt } from '../rungs/system-prompt.js';
import { toolResults } from '../rungs/tool-results.js';
import { toolSpecs } from '../rungs/tools.js';
import { turnMessage } from '../rungs/turn-message.js';
import { nextDecisionPoint, type DecisionPoint } from '../session/replay.js';
import type { Action } from '../session/session-state.js';
import { sessionMetrics, type SessionMetrics } from '../metrics/session-metrics.js';
import { runSession } from '../session/run-session.js';
import { classSequence, type Stream } from '../stream/stream.js';
import { decisionCandidates, type Candidate } from './decision-candidates.js';
import { decisionFeatures, decisionReward, type DecisionFeatures } from './decision-features.js';

/*
 * One training episode of the reinforcement-learning study (Appendix F): a
 * decision-rung session of the harness, played one decision at a time by a
 * trainer instead of a provider. It is the harness's session, not a copy: the
 * same stream, system prompt, turn messages, tools, reply reading and tool
 * results (core/rungs, core/session); what it adds is what a trainer needs at
 * each decision — the per-decision reward, the critic's features, the two
 * candidate replies of the constrained mode — and it is pure, like the rest
 * of the core.
 */

export interface EpisodeSettings {
  readonly rung: DecisionRung;
  readonly budget: number;
  /** Whether the system prompt discloses N (the paper's Run 2 trained with it, Run 1 without). */
  readonly announceN: boolean;
  readonly reskin: Framing['reskin'];
  /** Local models are made to call a tool at the tool rungs, as the paper's were. */
  readonly toolChoice: 'auto' | 'required';
}

export interface Episode {
  readonly settings: EpisodeSettings;
  readonly stream: Stream;
  readonly framing: Framing;
  readonly actions: readonly Action[];
  readonly exchanges: readonly Exchange[];
}

/** What the trainer is asked at a pending decision. */
export interface PendingDecision {
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  readonly toolChoice: 'auto' | 'required';
  /** The whole conversation so far, ending with this turn's user message. */
  readonly messages: readonly ChatMessage[];
  /** The constrained mode's replies, one per action, each read by the parser as that action. */
  readonly candidates: readonly Candidate[];
  readonly t: number;
  readonly classId: number;
  readonly occurrence: number;
  readonly role: 'hot' | 'trap';
  readonly features: DecisionFeatures;
}

/** What one reply did. */
export interface EpisodeStep {
  readonly episode: Episode;
  readonly reading: ParsedDecision;
  /** Items this decision earns: at the c-th of a class's n occurrences a commit earns n − c + 1, a pass 0. */
  readonly reward: number;
}

export function startEpisode(settings: EpisodeSettings, stream: Stream): Episode {
  const framing: Framing = {
    rung: settings.rung,
    horizon: stream.items.length,
    budget: settings.budget,
    charge: 0,
    economic: false,
    classCount: FAMILY_NAMES.length,
    announceN: settings.announceN,
    reskin: settings.rung === 'R0' || settings.rung === 'probe' ? settings.reskin : 'ball',
  };
  return { settings, stream, framing, actions: [], exchanges: [] };
}

const setting = (episode: Episode) => ({ budget: episode.settings.budget, charge: 0, classCount: FAMILY_NAMES.length });

function pendingPoint(episode: Episode): DecisionPoint | null {
  return nextDecisionPoint(
    classSequence(episode.stream),
    setting(episode),
    episode.actions.map((action) => ({ action })),
  );
}

/** The pending decision, or null when the episode is over (no decision turn is left). */
export function pendingDecision(episode: Episode): PendingDecision | null {
  const point = pendingPoint(episode);
  if (!point) return null;
  const item = episode.stream.items[point.t - 1];
  if (!item) throw new Error(`episode: decision at t=${point.t} beyond the stream`);
  const { framing } = episode;
  return {
    system: systemPrompt(framing),
    tools: toolSpecs(framing),
    toolChoice: episode.settings.rung === 'R0' ? 'auto' : episode.settings.toolChoice,
    messages: conversation(episode.exchanges, turnMessage(framing, point, item)),
    candidates: decisionCandidates(episode.settings.rung),
    t: point.t,
    classId: point.classId,
    occurrence: point.observation.occurrence,
    role: item.role,
    features: decisionFeatures(point.observation, item.role, episode.stream.config),
  };
}

/** The episode scored as a session is (core/metrics): items collected, commitments and those at first sight. */
export function episodeMetrics(episode: Episode): SessionMetrics {
  let next = 0;
  const replay = { name: 'recorded', decide: () => episode.actions[next++] ?? 'pass' };
  return sessionMetrics(runSession(classSequence(episode.stream), setting(episode), replay));
}

/**
 * Reads the reply as the harness reads a local model's — a call left in the
 * text at a tool rung is recovered as a call, as the local providers do —
 * applies the decision and returns the reward it earned.
 */
export function stepEpisode(episode: Episode, given: ModelReply): EpisodeStep {
  const point = pendingPoint(episode);
  if (!point) throw new Error('episode: no decision is pending');
  const item = episode.stream.items[point.t - 1];
  if (!item) throw new Error(`episode: decision at t=${point.t} beyond the stream`);
  const { rung } = episode.settings;
  const toolNames = toolSpecs(episode.framing).map((tool) => tool.name);
  const reply: ModelReply =
    rung === 'R0' || given.toolCalls.length > 0 ? given : { text: given.text, toolCalls: recoverToolCalls(given.text, toolNames) };
  const reading = parseReply(rung, reply);
  const exchange: Exchange = {
    user: turnMessage(episode.framing, point, item),
    reply,
    toolResults: rung === 'R0' ? [] : toolResults(rung, reply, reading),
  };
  return {
    episode: { ...episode, actions: [...episode.actions, reading.action], exchanges: [...episode.exchanges, exchange] },
    reading,
    reward: decisionReward(classSequence(episode.stream), point.t, reading.action),
  };
}
