/*
 * Bundles the workflow code once, at build time (`npm run build`), into
 * dist/workflow-bundle.js: a worker then loads it instead of running webpack
 * on start-up, which costs seconds of CPU per worker process.
 */
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { workflowBundlePath, workflowsPath } from './create-workers.js';

const { code } = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: new DefaultLogger('WARN') });
await writeFile(workflowBundlePath(), code);
