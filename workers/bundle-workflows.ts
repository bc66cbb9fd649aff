/*
 * Bundles the workflow code once, at build time (`npm run build`), into
 * dist/workflow-bundle.js: a worker then loads it instead of running webpack
 * on start-up, which costs seconds of CPU per worker process.
 */
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowBundlePath, workflowsPath } from './create-workers.js';

/*
 * Preloaded: the workflows' modules, with everything they import, are loaded
 * once into the worker's reusable V8 context and shared by every workflow,
 * instead of evaluated again at each workflow's start. That start then costs about 2 ms
 * less (@noble/hashes' tables most of it), and V8 optimizes the workflow code
 * once rather than again in every session (its compiler threads had been busy
 * for the whole of a sweep). It holds because no module of workflows/ (nor of
 * core/ or protocol/ that they import) keeps state at module level: a
 * workflow's state lives in its function's own variables, and the SDK's in its
 * activator. Shared modules are frozen, so a write to one would throw.
 */
const { code } = await bundleWorkflowCode({
  workflowsPath: workflowsPath(),
  preloadModules: [workflowsPath()],
  logger: new DefaultLogger('WARN'),
});
await writeFile(workflowBundlePath(), withoutSourcesContent(code));

/**
 * The bundle's inline source map without the sources' text (1.1 of its 3.2 MB):
 * a worker decodes, parses and copies the map into its workflow thread, which
 * keeps it for stack traces; those still name each file and line, from the
 * map's mappings. A worker holds about 20 MiB less at its peak (173 MiB
 * against 155 for an idle one).
 */
function withoutSourcesContent(bundle: string): string {
  const comment = bundle.lastIndexOf('//# sourceMappingURL=data:');
  const data = bundle.indexOf('base64,', comment) + 'base64,'.length;
  const map = JSON.parse(Buffer.from(bundle.slice(data).trimEnd(), 'base64').toString()) as Record<string, unknown>;
  delete map.sourcesContent;
  return `${bundle.slice(0, data)}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}
