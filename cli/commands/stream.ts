import type { Command } from 'commander';
import { generateStream } from '../../core/stream/generate-stream.js';
import type { Stream } from '../../core/stream/stream.js';
import { printJson, table } from '../format.js';
import { addStreamOptions, seedOption, streamConfigFrom, type StreamFlags } from '../stream-options.js';

function describe(stream: Stream): string {
  const { config } = stream;
  const header = [
    `seed ${stream.seed} · T=${config.length} B=${config.budget} · hot mass ${config.hotMass} · magnitude ${config.magnitude}`,
    `hash ${stream.hash}`,
    `hot:  ${stream.hot.join(', ')}`,
    `trap: ${stream.trap.join(', ')}`,
    '',
  ];
  const rows = stream.items.map((item) => [String(item.t), item.family, item.role, String(item.answer), item.text]);
  return [...header, table(['t', 'family', 'role', 'answer', 'problem'], rows, [1, 2, 4])].join('\n');
}

export function registerStream(program: Command): void {
  addStreamOptions(
    program
      .command('stream')
      .description('print the stream for a seed: roles, items (text, inputs, gold answer) and content hash')
      .requiredOption('--seed <S>', 'stream seed (the panel is 2000-2023)', seedOption)
      .option('--json', 'print the stream as JSON'),
  ).action((options: StreamFlags & { seed: number; json?: boolean }) => {
    const stream = generateStream(options.seed, streamConfigFrom(options));
    if (options.json) printJson(stream);
    else process.stdout.write(`${describe(stream)}\n`);
  });
}
