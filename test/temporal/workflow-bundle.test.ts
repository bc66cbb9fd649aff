import { readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../infra/project-root.js';
import { workflowBundlePath } from '../../workers/create-workers.js';

/** The prebuilt bundle (`npm run build`) as a worker loads it, and its inline source map. */
function readBundle(): { code: string; map: SourceMapPayload } {
  const bundle = readFileSync(workflowBundlePath(), 'utf8');
  const data = bundle.indexOf('base64,', bundle.lastIndexOf('//# sourceMappingURL=data:')) + 'base64,'.length;
  return { code: bundle, map: JSON.parse(Buffer.from(bundle.slice(data), 'base64').toString()) as SourceMapPayload };
}

/** The 0-based index of the first line of `lines` that contains `text`. */
const lineWith = (lines: readonly string[], text: string) => lines.findIndex((line) => line.includes(text));

describe('the prebuilt workflow bundle', () => {
  const { code, map } = readBundle();

  it('holds only Latin-1 characters, so V8 keeps its source one byte a character', () => {
    expect(code.match(/[^\u0000-\u00ff]/g) ?? []).toEqual([]);
    // The escapes stand for the characters: a prompt's dash is still a dash once the bundle runs.
    expect(code).toContain('\\u2014');
  });

  it("carries no zod: the workflows' modules take no schema, which a worker would build and hold for as long as it runs", () => {
    expect(map.sources.filter((source) => source.includes('node_modules/zod/'))).toEqual([]);
    expect(map.sources.some((source) => source.endsWith('workflows/sweep-workflow.ts'))).toBe(true);
  });

  it("maps a workflow's lines back to its TypeScript source, without carrying the sources' text", () => {
    expect(map.sourcesContent).toBeUndefined();
    const generatedLine = lineWith(code.split('\n'), 'async function sessionWorkflow(');
    const source = readFileSync(join(projectRoot(), 'workflows', 'session-workflow.ts'), 'utf8').split('\n');
    const entry = new SourceMap(map).findEntry(generatedLine, 0) as { originalSource?: string; originalLine?: number };
    expect(entry.originalSource).toMatch(/workflows\/session-workflow\.ts$/);
    expect(entry.originalLine).toBe(lineWith(source, 'export async function sessionWorkflow('));
  });
});
