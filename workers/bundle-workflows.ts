/*
 * Bundles the workflow code once, at build time (`npm run build`), into
 * dist/workflow-bundle.js: a worker then loads it instead of running webpack
 * on start-up, which costs seconds of CPU per worker process.
 */
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { latin1Source } from '../infra/latin1-source.js';
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
  /*
   * Line-level mappings (webpack's "cheap" maps): a stack trace names each
   * file and line, which is all a reader looks at, from a third of the
   * segments. The SDK parses the map when a worker starts and keeps it for
   * every stack trace, in a WebAssembly memory that never shrinks: 7.8 MiB
   * with column-level mappings.
   */
  webpackConfigHook: (config) => ({ ...config, devtool: 'inline-cheap-module-source-map' }),
});
// Latin-1 only: 60 dashes and arrows had made V8 hold the whole bundle two bytes a character.
await writeFile(workflowBundlePath(), latin1Source(withoutSourcesContent(code)));

/**
 * The bundle's inline source map without the sources' text (most of the
 * map): a worker decodes, parses and keeps the map for stack traces; those
 * still name each file and line, from the map's mappings.
 */
function withoutSourcesContent(bundle: string): string {
  const comment = bundle.lastIndexOf('//# sourceMappingURL=data:');
  const data = bundle.indexOf('base64,', comment) + 'base64,'.length;
  const map = JSON.parse(Buffer.from(bundle.slice(data).trimEnd(), 'base64').toString()) as Record<string, unknown>;
  delete map.sourcesContent;
  return `${bundle.slice(0, data)}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}
