import type { Command } from 'commander';
import { InputError } from '../../core/errors.js';
import { defaultCacheDir } from '../../analysis/stream-values-cache.js';

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new InputError(`--port: '${text}' is not a port (0–65535)`);
  return port;
}

function uiOf(text: string): string {
  if (!/^https?:\/\/[^\s]+$/.test(text)) throw new InputError(`--temporal-ui: '${text}' is not an http(s) address`);
  return text;
}

export function registerView(program: Command): void {
  program
    .command('view')
    .description(
      'a local web app over run directories, read-only: runs, cells and sessions; each session as a conversation with every attempt and policy/optimal beside each decision; two sessions side by side; live while a sweep runs',
    )
    .argument(
      '[runs...]',
      'run directories or s3://bucket/prefix locations, or folders of them (default: ./runs); runs that appear in them later are served too, and a location with none yet is waited for',
    )
    .option('--port <port>', 'port to serve on (0: any free one)', '7080')
    .option('--host <host>', 'address to bind (only this machine by default)', '127.0.0.1')
    .option(
      '--temporal-ui <url>',
      "the Temporal Web UI each session links to (default: the embedded server's while a sweep runs on the run)",
    )
    .option('--temporal-namespace <name>', "the namespace of the run's workflows", process.env.TEMPORAL_NAMESPACE || 'default')
    .action(async (paths: string[], flags: { port: string; host: string; temporalUi?: string; temporalNamespace: string }) => {
      const { startViewer } = await import('../../viewer/start-viewer.js');
      const { waitingLine } = await import('../../viewer/run-catalog.js');
      const viewer = await startViewer({
        locations: paths.length > 0 ? paths : ['runs'],
        host: flags.host,
        port: portOf(flags.port),
        temporalUi: flags.temporalUi ? { url: uiOf(flags.temporalUi), namespace: flags.temporalNamespace } : null,
        cacheDir: defaultCacheDir(),
      });
      for (const location of viewer.waitingFor) process.stderr.write(`${waitingLine(location)} (Ctrl-C stops)\n`);
      process.stdout.write(`allocbench view: ${viewer.runs} run${viewer.runs === 1 ? '' : 's'} at ${viewer.url} (Ctrl-C to stop)\n`);
      await new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
      });
      await viewer.close();
    });
}
