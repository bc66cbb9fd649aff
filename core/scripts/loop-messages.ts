import type { StreamItem } from '../stream/stream.js';

/**
 * The user message that opens problem t: its text and its named values, as
 * solve(inputs) would receive them, and for a split agent's builder whether
 * the problem's type still has a write available.
 */
export function problemMessage(t: number, horizon: number, item: StreamItem, builder?: { readonly writable: boolean }): string {
  return [
    `Problem ${t} of ${horizon}:\n${item.text}`,
    `Named values: ${JSON.stringify(item.inputs)}`,
    ...(builder
      ? [
          builder.writable
            ? 'The planner claimed this type and it has no script yet: you may write one script for it.'
            : 'You already wrote the script for this type: no write is available for it.',
        ]
      : []),
    'When you have the answer, call submit_answer with it.',
  ].join('\n\n');
}

/** Sent after a reply with no tool call; a second such reply in a row gives the problem up unanswered. */
export const LOOP_FORMAT_REMINDER =
  'Your last reply made no tool call. Act through the tools (write_script, run_script, list_scripts, read_script, submit_answer); another reply without a tool call moves on to the next problem with this one unanswered.';
