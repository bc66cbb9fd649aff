import { resolve } from 'node:path';
import type { Command } from 'commander';
import { decisionCandidates } from '../../core/rl/decision-candidates.js';
import { runTrainerModule } from '../../rl/bridge/python-trainer.js';

export function registerTrain(program: Command): void {
  program
    .command('train')
    .description(
      "train a policy on the urn (the paper's RL study, Appendix F): per-decision PPO with a LoRA adapter, or the GRPO pilot; rerun the same command to resume",
    )
    .argument('<config>', 'a training config (YAML), e.g. rl/configs/smoke-cpu.yaml')
    .requiredOption('--out <dir>', 'the training run directory: settings, steps.jsonl, rollouts, checkpoints')
    .option('--force-gate', 'go on when the step-0 credit-assignment gate finds a wrong sign')
    .addHelpText(
      'after',
      `
Exit status: 0 trained (or already finished), 2 bad config or input, 3 the step-0 gate failed.
Needs the trainer's environment: npm run rl:setup.`,
    )
    .action(async (config: string, flags: { out: string; forceGate?: boolean }) => {
      const args = ['--config', resolve(config), '--out', resolve(flags.out), ...(flags.forceGate ? ['--force-gate'] : [])];
      process.exitCode = await runTrainerModule('allocbench_rl.train', args);
    });

  program
    .command('export')
    .description(
      "write a training run's checkpoint as a GGUF file (the adapter merged into the base), for --model gguf/<file> or any llama.cpp server",
    )
    .argument('<training-dir>', 'a directory written by allocbench train')
    .option('--step <k>', 'the checkpoint of this step (kept with keepCheckpoints: all); default the last')
    .option('--base', 'the base model alone, through the same path (the base arm at the same quantization)')
    .option('--type <type>', "the GGUF type: q8_0 (the paper's), f16, bf16 or f32", 'q8_0')
    .option('--out <file>', 'the file to write (default: <training-dir>/gguf/<step-KKKK|base>.<type>.gguf)')
    .addHelpText('after', '\nExit status: 0 written, 2 bad input (not a training directory, no finished step, unknown type).')
    .action(async (dir: string, flags: { step?: string; base?: boolean; type: string; out?: string }) => {
      const args = [
        '--run',
        resolve(dir),
        '--type',
        flags.type,
        ...(flags.step ? ['--step', flags.step] : []),
        ...(flags.base ? ['--base'] : []),
        ...(flags.out ? ['--out', resolve(flags.out)] : []),
      ];
      process.exitCode = await runTrainerModule('allocbench_rl.export', args);
    });

  program
    .command('serve')
    .description(
      "serve a training run's checkpoint (base model + adapter) as an OpenAI-compatible server, for `allocbench sweep` with model openai-compatible/<name>@http://127.0.0.1:<port>/v1",
    )
    .argument('<training-dir>', 'a directory written by allocbench train')
    .option('--port <port>', 'the port to listen on', '8000')
    .option('--step <k>', 'the checkpoint of this step (kept with keepCheckpoints: all); default the last')
    .option('--base', 'serve the base model, the adapter off (the base arm of compare)')
    .option('--name <name>', "the model's name, as the sweep's model id gives it (default: checkpoint, or base with --base)")
    .option(
      '--constrained',
      'answer by scoring the decision replies (a DECISION line at R0, a keep or pass tool call) instead of free text',
    )
    .action(async (dir: string, flags: { port: string; step?: string; base?: boolean; name?: string; constrained?: boolean }) => {
      const texts = decisionCandidates('R0').map((candidate) => candidate.reply.text);
      const args = [
        '--run',
        resolve(dir),
        '--port',
        flags.port,
        '--name',
        flags.name ?? (flags.base ? 'base' : 'checkpoint'),
        ...(flags.step ? ['--step', flags.step] : []),
        ...(flags.base ? ['--base'] : []),
        ...(flags.constrained ? ['--constrained', '--text-candidates', JSON.stringify(texts)] : []),
      ];
      process.exitCode = await runTrainerModule('allocbench_rl.serve', args);
    });
}
