import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { conversation } from '../../core/chat/conversation.js';
import { parseSweepConfig } from '../../core/sweep/sweep-config.js';
import { expandSweep } from '../../core/sweep/expand-sweep.js';
import { RlEnvironment } from '../../rl/bridge/rl-env-protocol.js';
import { serverForThisFile, summaryOf, sweepOn, transcriptOf } from './harness.js';

const temporal = serverForThisFile();

/*
 * The training environment is the harness's session, not a copy: a session
 * played through Temporal by a reference agent, its recorded replies fed to
 * `allocbench rl-env`, gives the same system prompt, tools, messages,
 * readings and decisions, and rewards that sum to the session's items.
 */
const sweep = parseSweepConfig({
  name: 'rl-agreement',
  models: ['policy/commit-at-2', 'policy/eager?reply=2:no-decision,3:several-decisions'],
  rungs: ['R0', 'probe', 'R1'],
  reskins: ['ball', 'quiver'],
  announceN: [true],
  seeds: [9000, 9001],
  stream: { length: 24 },
  window: 24,
});

describe('the RL environment and a harness session on the same stream', () => {
  it('agree on every prompt, reading, decision and reward', async () => {
    const runDir = join(temporal.dir, 'agreement');
    await sweepOn(temporal.server, sweep, runDir);
    const environment = new RlEnvironment();
    const send = (request: object) => JSON.parse(environment.handle(JSON.stringify(request)));
    for (const spec of expandSweep(sweep)) {
      const [summary, transcript] = [await summaryOf(runDir, spec), await transcriptOf(runDir, spec)];
      const id = `${spec.model}/${spec.rung}/${spec.reskin}/${spec.seed}`;
      const opened = send({
        op: 'reset',
        episodes: [
          { id, seed: spec.seed, rung: spec.rung, length: 24, announceN: true, reskin: spec.reskin ?? 'ball', toolChoice: 'auto' },
        ],
      });
      let decision = opened.decisions[0];
      expect(decision.system, id).toBe(transcript.start?.system);
      expect(decision.tools).toEqual(transcript.start?.tools);
      let items = 0;
      transcript.turns.forEach((turn, i) => {
        const exchanges = transcript.turns.slice(0, i).map((t) => ({ user: t.user, reply: t.reply, toolResults: t.toolResults }));
        expect(decision.messages, `${id} turn ${turn.t}`).toEqual(JSON.parse(JSON.stringify(conversation(exchanges, turn.user))));
        expect(decision.t).toBe(turn.t);
        const { results } = send({ op: 'step', replies: [{ id, ...turn.reply }] });
        const [result] = results;
        expect(result.reading.action).toBe(turn.decision.action);
        expect(result.reading.resolved).toBe(turn.decision.resolved);
        items += result.reward;
        decision = result.next;
      });
      expect(decision).toMatchObject({ done: true, items: summary.metrics.utility, commitments: summary.metrics.commitments });
      expect(items).toBe(summary.metrics.utility);
    }
  });
});
