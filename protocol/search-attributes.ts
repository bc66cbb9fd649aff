import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SessionSpec } from '../core/sweep/session-spec.js';

/** Typed search attributes, so sessions can be found in the Temporal Web UI. Never secrets. */
export const SWEEP_ID = defineSearchAttributeKey('SweepId', SearchAttributeType.KEYWORD);
export const MODEL = defineSearchAttributeKey('Model', SearchAttributeType.KEYWORD);
export const RUNG = defineSearchAttributeKey('Rung', SearchAttributeType.KEYWORD);
export const SEED = defineSearchAttributeKey('Seed', SearchAttributeType.INT);

export const SEARCH_ATTRIBUTE_KEYS = [SWEEP_ID, MODEL, RUNG, SEED] as const;

export function sessionSearchAttributes(sweepId: string, spec: SessionSpec) {
  return [
    { key: SWEEP_ID, value: sweepId },
    { key: MODEL, value: spec.model },
    { key: RUNG, value: spec.rung },
    { key: SEED, value: spec.seed },
  ];
}
