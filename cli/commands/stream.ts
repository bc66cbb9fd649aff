import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { readSourceStream } from '../../run-store/stream-source.js';
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
  const rows = stream.items.map((item) => [String(item.t), item.family, item.role, item.answer, item.text]);
  return [...header, table(['t', 'family', 'role', 'answer', 'problem'], rows, [1, 2, 4])].join('\n');
}

export function registerStream(program: Command): void {
  addStreamOptions(
    program
      .command('stream')
      .description('print the stream for a seed: roles, items (text, inputs, gold answer) and content hash')
      .requiredOption('--seed <S>', 'stream seed (the panel is 2000-2023)', seedOption)
      .option(
        '--from <dir>',
        "read the stream from this directory instead of the generator: an authors' arm or a run directory (an import)",
      )
      .option('--json', 'print the stream as JSON'),
  ).action(async (options: StreamFlags & { seed: number; from?: string; json?: boolean }) => {
    const { length, budget, hotCount, hotMass, magnitude } = options;
    if (options.from && [length, budget, hotCount, hotMass, magnitude].some((value) => value !== undefined)) {
      throw new InputError("--from: the stream's settings come from its directory; drop the generator flags");
    }
    const stream = options.from
      ? await readSourceStream(resolve(options.from), options.seed)
      : generateStream(options.seed, streamConfigFrom(options));
    if (options.json) printJson(stream);
    else process.stdout.write(`${describe(stream)}\n`);
  });
}
