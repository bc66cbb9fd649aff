import type { ModelReply } from '../chat/messages.js';
import type { ParsedDecision } from './parse-reply.js';
import type { DecisionRung } from './rung.js';
import { decisionTools } from './tools.js';

/** What each tool call of a reply is answered with (every call gets a result, as providers require). */
export interface ToolResult {
  readonly toolCallId: string;
  readonly content: string;
}

/**
 * Tool results are bare acknowledgements, as in the paper's harness: the call
 * that decides is recorded, any other call is ignored, and a reply that could
 * not be read says so (the turn then counts as a pass). The outcome itself is
 * not echoed: the next turn's message reports what the stream did.
 */
export function toolResults(rung: DecisionRung, reply: ModelReply, decision: ParsedDecision): ToolResult[] {
  const names = new Set(decisionTools(rung).map((tool) => tool.name));
  const deciding = decision.resolved ? reply.toolCalls.find((call) => names.has(call.name)) : undefined;
  return reply.toolCalls.map((call) => ({
    toolCallId: call.id,
    content:
      call === deciding
        ? 'Recorded.'
        : decision.resolved
          ? 'Ignored: a turn takes one decision, and it is recorded.'
          : `Not accepted (${decision.detail}); this turn counts as a pass.`,
  }));
}
