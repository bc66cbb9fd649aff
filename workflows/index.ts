// The workflow bundle's entry point: every workflow the workers run.
export { sessionWorkflow } from './session-workflow.js';
export { sweepWorkflow } from './sweep-workflow.js';
