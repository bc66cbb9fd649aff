import type { ChatMessage } from '../../../core/chat/messages.js';
import { toolSpecs } from '../../../core/rungs/tools.js';
import type { Rung } from '../../../core/rungs/rung.js';
import type { GenerateRequest } from '../../../activities/providers/provider.js';

/** A provider request as the model activity builds one, with a short history. */
export function requestFor(
  rung: Rung,
  messages: readonly ChatMessage[] = [{ role: 'user', content: 'Problem 1 of 60: ...' }],
): GenerateRequest {
  return {
    system: 'You will be shown 60 numeric problems.',
    messages,
    tools: toolSpecs({ rung, reskin: 'ball' }),
    toolChoice: 'auto',
    temperature: null,
    maxOutputTokens: 1500,
    call: 1,
    attempt: 1,
    conversationKey: 'session-1',
    sampleSeed: 1,
  };
}

/** Turn 2 of an R1 session: the first reply called claim_solver, whose result opens the next turn. */
export const secondTurn: ChatMessage[] = [
  { role: 'user', content: 'Problem 1 of 60: first' },
  { role: 'assistant', content: 'I will claim.', toolCalls: [{ id: 'call_1', name: 'claim_solver', arguments: '{}' }] },
  { role: 'tool', toolCallId: 'call_1', content: 'Claimed.' },
  { role: 'user', content: 'Problem 2 of 60: second' },
];
