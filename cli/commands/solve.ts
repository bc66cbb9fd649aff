import type { Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { getFamily } from '../../core/families/registry.js';

function parseJson(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${option}: malformed JSON (${(error as Error).message})`);
  }
}

export function registerSolve(program: Command): void {
  program
    .command('solve')
    .description("print a family's gold answer for the given canonical inputs")
    .argument('<family>', 'family name, e.g. lcg')
    .requiredOption('--inputs <json>', 'canonical inputs as JSON, e.g. \'{"n": 168, "k": 6}\'')
    .action((name: string, options: { inputs: string }) => {
      const family = getFamily(name);
      const inputs = family.parseInputs(parseJson(options.inputs, '--inputs'));
      process.stdout.write(`${family.solve(inputs)}\n`);
    });
}
