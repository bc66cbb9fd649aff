import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { RlEnvironment } from '../rl-env-protocol.js';

export function registerRlEnv(program: Command): void {
  program
    .command('rl-env')
    .description(
      "the reinforcement-learning study's environment for a trainer: JSON lines on stdin and stdout (reset, step, baselines, close); see cli/rl-env-protocol.ts",
    )
    .action(async () => {
      const environment = new RlEnvironment();
      const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        process.stdout.write(`${environment.handle(line)}\n`);
      }
    });
}
