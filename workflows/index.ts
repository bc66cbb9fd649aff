// The workflow bundle's entry point: every workflow the workers run.
export { sessionWorkflow } from './session-workflow.js';
export { sweepWorkflow, progressQuery } from './sweep-workflow.js';
