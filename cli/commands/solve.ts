import { Argument, type Command } from 'commander';
import { FAMILY_NAMES } from '../../core/families/family.js';
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
    .addArgument(new Argument('<family>', 'the family').choices(FAMILY_NAMES))
    .requiredOption(
      '--inputs <json>',
      'canonical inputs as JSON, under the family\'s upper-case keys, e.g. \'{"N": 168, "K": 6}\' for josephus',
    )
    .action((name: string, options: { inputs: string }) => {
      const family = getFamily(name);
      const inputs = family.parseInputs(parseJson(options.inputs, '--inputs'));
      process.stdout.write(`${family.solve(inputs)}\n`);
    });
}
