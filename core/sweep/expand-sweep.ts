import { isUrnRung, type Rung } from '../rungs/rung.js';
import { isLocalModel, type AgentModel, type SessionSpec } from './session-spec.js';
import type { SweepArm, SweepConfig } from './sweep-config.js';

/*
 * A sweep's sessions, apart from its schema (sweep-config.ts): the sweep
 * workflow expands its config, and workflow code stays free of zod, whose
 * module set-up every workflow would otherwise pay for (a worker holds the
 * workflow bundle's modules for as long as it runs). Only types come from
 * sweep-config.ts.
 */

/**
 * The cost caps a sweep runs under: limits of one invocation, not of the
 * experiment (the experiment hash leaves them out), so a sweep run again with
 * a higher cap goes on with the sessions the lower one stopped.
 */
export type CostCaps = Pick<SweepConfig, 'unitCap' | 'runCap'>;

export const costCapsOf = ({ unitCap, runCap }: CostCaps): CostCaps => ({ unitCap, runCap });

/** The models the sweep's sessions are filed under (a session's `model`): its models, or its split agent's planner. */
export function sessionModels(config: Pick<SweepConfig, 'models' | 'agent'>): string[] {
  return config.agent.kind === 'split' ? [config.agent.planner] : [...(config.models ?? [])];
}

/** Every model the sweep calls, once each: its models, or its split agent's planner and builder. */
export function calledModels(config: Pick<SweepConfig, 'models' | 'agent'>): string[] {
  return config.agent.kind === 'split' ? [...new Set([config.agent.planner, config.agent.builder])] : [...(config.models ?? [])];
}

/** The paper's session token cap: 300,000 tokens at R3; the R0–R2 ladder runs had none. */
const defaultTokenCap = (rung: Rung) => (rung === 'R3' ? 300_000 : null);

/** A model with the sweep's price for it and its temperature (unset: 0 for a local model, the provider's default otherwise). */
function agentModel(config: SweepConfig, model: string): AgentModel {
  const temperature = config.temperature === undefined ? (isLocalModel(model) ? 0 : null) : config.temperature;
  return { model, price: config.prices[model] ?? null, temperature };
}

type Grid = Omit<SweepArm, 'name'> & { readonly name?: string };

/** The grids a sweep crosses with its models and seeds: its arms, or its own grid as one arm without a name. */
function grids(config: SweepConfig): readonly Grid[] {
  if (config.arms) return config.arms;
  const { rungs, budgets, charges, reskins, announceN, economic } = config;
  return [{ rungs, budgets, charges, reskins, announceN, ...(economic !== undefined && { economic }) }];
}

/** Every session of the sweep, in a fixed order. */
export function expandSweep(config: SweepConfig): SessionSpec[] {
  const specs: SessionSpec[] = [];
  const agent = config.agent.kind === 'split' ? { kind: 'split' as const, builder: agentModel(config, config.agent.builder) } : undefined;
  for (const model of sessionModels(config)) {
    const { price, temperature } = agentModel(config, model);
    for (const grid of grids(config)) {
      for (const rung of grid.rungs) {
        for (const reskin of isUrnRung(rung) ? grid.reskins : [null]) {
          for (const announceN of grid.announceN) {
            for (const budget of grid.budgets) {
              for (const charge of grid.charges) {
                for (const seed of config.seeds) {
                  specs.push({
                    model,
                    ...(grid.name !== undefined && { arm: grid.name }),
                    rung,
                    seed,
                    budget,
                    charge,
                    reskin,
                    announceN,
                    stream: config.stream,
                    streams: config.streams,
                    tokenCap: config.tokenCap === undefined ? defaultTokenCap(rung) : config.tokenCap,
                    temperature,
                    economic: grid.economic ?? grid.charges.some((charge) => charge > 0),
                    strictParse: config.strictParse,
                    price,
                    emptyRetries: config.emptyRetries,
                    maxRetryAfterSeconds: config.maxRetryAfterSeconds,
                    script: config.r3,
                    ...(agent && { agent }),
                  });
                }
              }
            }
          }
        }
      }
    }
  }
  return specs;
}
