import type { DecisionRung } from './rung.js';
import { decisionTools } from './tools.js';

/**
 * The short reminder a local model gets when its reply held no tool call and
 * the same turn is asked again (the paper's empty-fence retries: the failed
 * reply is dropped from the conversation, the reminder follows the turn's message).
 */
export function formatReminder(rung: Exclude<DecisionRung, 'R0'>): string {
  const [first, second] = decisionTools(rung).map((tool) => tool.name);
  return `Your last reply made no tool call. Decide by calling the ${first} tool or the ${second} tool itself: a real tool call, not its text, a code block or a tag.`;
}
