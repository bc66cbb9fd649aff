import type { Command } from 'commander';

export function registerRlEnv(program: Command): void {
  program
    .command('rl-env')
    .description(
      "the reinforcement-learning study's environment for a trainer: JSON lines on stdin and stdout (reset, step, baselines, close); see rl/bridge/rl-env-protocol.ts",
    )
    .action(async () => (await import('../../rl/bridge/rl-env-stdio.js')).serveRlEnvironment(process.stdin, process.stdout));
}
