/** The paper's figures: a Vega-Lite spec per figure from plain data, and one renderer to SVG and PNG. */
export type { Estimate } from './estimate.js';
export { renderFigure, PNG_SCALE, type RenderedFigure } from './render.js';
export { optimalPolicySpec, type OptimalPolicyInput, type PolicyAction } from './optimal-policy.js';
export { coreFirstSightSpec, type ModelFirstSight, type SeedFirstSight } from './core-first-sight.js';
export { scoreSpec, type ModelScores } from './score.js';
export { ladderSpec, type LadderInput } from './ladder.js';
export { economicSpec, OPTIMUM_LABEL, type EconomicCell } from './economic.js';
export { transferSpec, significantlyBetter, type TransferInput, type TransferPanelRates } from './transfer.js';
