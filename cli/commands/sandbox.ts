import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_SANDBOX_LIMITS, SANDBOX_LIMIT_RANGES, type ScriptOutcome } from '../../core/scripts/script-outcome.js';
import { InputError } from '../../core/errors.js';
import { integerIn } from '../options.js';

interface SandboxOptions {
  codeFile: string;
  inputs: string;
  timeoutMs: number;
  memoryMb: number;
}

function readCode(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(`--code-file: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

function parseJson(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${option}: malformed JSON (${(error as Error).message})`);
  }
}

/** The outcome as printed: logs only when the script printed something. */
function printable({ logs, ...outcome }: ScriptOutcome): object {
  return logs === '' ? outcome : { ...outcome, logs };
}

export function registerSandbox(program: Command): void {
  const { timeoutMs, memoryMb } = SANDBOX_LIMIT_RANGES;
  program
    .command('sandbox')
    .description("run a script's solve(inputs) in the R3 sandbox and print the outcome as JSON (exit 0 even when the script fails)")
    .requiredOption('--code-file <file>', 'the script, defining function solve(inputs)')
    .requiredOption('--inputs <json>', 'the inputs as JSON, e.g. \'{"SEED": 141, "A": 73100, "B": 38400, "M": 21759900, "K": 26}\'')
    .option('--timeout-ms <N>', 'CPU time limit of the run', integerIn(...timeoutMs), DEFAULT_SANDBOX_LIMITS.timeoutMs)
    .option('--memory-mb <N>', 'heap limit of the run', integerIn(...memoryMb), DEFAULT_SANDBOX_LIMITS.memoryMb)
    .action(async (options: SandboxOptions) => {
      const code = readCode(options.codeFile);
      const inputs = parseJson(options.inputs, '--inputs');
      const { ScriptSandbox } = await import('../../activities/sandbox/script-sandbox.js');
      const sandbox = new ScriptSandbox({ warm: false });
      const outcome = await sandbox.run(code, inputs, { timeoutMs: options.timeoutMs, memoryMb: options.memoryMb });
      sandbox.dispose();
      process.stdout.write(`${JSON.stringify(printable(outcome))}\n`);
    });
}
