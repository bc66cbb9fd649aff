import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { cliPath } from '../infra/project-root.js';

/** A run's report as the viewer knows it. */
export type ReportState =
  | { readonly state: 'none' }
  | { readonly state: 'building'; readonly since: string }
  | { readonly state: 'built'; readonly at: string; readonly dir: string; readonly line: string }
  | { readonly state: 'failed'; readonly at: string; readonly line: string };

/**
 * The report's tables and figures, made by `allocbench analyze` itself (the
 * same renderers, in a process of its own: it reads every summary of the run,
 * which the viewer never holds at once), into a folder per run under the cache.
 */
export class ReportBuilds {
  private readonly states = new Map<string, ReportState>();

  constructor(private readonly cacheDir: string) {}

  state(location: string): ReportState {
    return this.states.get(location) ?? { state: 'none' };
  }

  /** Starts a build unless one is under way. */
  build(location: string): void {
    if (this.state(location).state === 'building') return;
    const dir = join(this.cacheDir, 'viewer-reports', createHash('sha256').update(location).digest('hex').slice(0, 16));
    this.states.set(location, { state: 'building', since: new Date().toISOString() });
    const child = spawn(process.execPath, ['--no-node-snapshot', cliPath(), 'analyze', location, '--out', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const done = (line: string, ok: boolean) =>
      this.states.set(
        location,
        ok ? { state: 'built', at: new Date().toISOString(), dir, line } : { state: 'failed', at: new Date().toISOString(), line },
      );
    child.on('error', (error) => done(error.message, false));
    child.on('close', (code) => {
      const last = (text: string) => text.trim().split('\n').at(-1) ?? '';
      if (code === 0) done(last(stdout), true);
      else done(last(stderr) || `analyze exited with code ${code}`, false);
    });
  }
}
