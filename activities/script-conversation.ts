import type { Exchange } from '../core/chat/conversation.js';
import { scriptToolResults } from '../core/scripts/script-tool-results.js';
import type { Transcript } from './run-store/transcript.js';

/** R3's completed turns as the conversation remembers them, each with the outcome of its script run. */
export function scriptExchanges(transcript: Transcript, budget: number): Exchange[] {
  let writes = 0;
  return transcript.scriptTurns.map((turn) => {
    if (turn.action.kind === 'write') writes++;
    const run = transcript.executions.get(turn.t)?.outcome;
    return { user: turn.user, reply: turn.reply, toolResults: scriptToolResults(turn.reply, turn.action, budget - writes, run) };
  });
}
