import { InputError } from '../core/errors.js';
import type { SplitRole } from '../core/rungs/rung.js';
import { checkSweepConfig, type SweepConfig } from '../core/sweep/sweep-config.js';
import { createProvider } from '../activities/providers/registry.js';

/**
 * The one validation of a sweep, whether `run` built it from flags or a sweep
 * file holds it: every setting by the schema (seeds by the CLI's rules), and
 * every model id (a split agent's planner and builder too) by the provider
 * registry, which is what knows one (an unknown provider or policy, a
 * malformed id, a missing GGUF file). Every error is reported, one line each,
 * and nothing starts. A provider's pre-flight (keys, servers) comes later,
 * where the workers run.
 */
export function validateSweep(
  raw: Record<string, unknown>,
  subject: string,
  modelField: (index: number) => string,
  agentField: (role: SplitRole) => string = (role) => `${subject}.agent.${role}`,
): SweepConfig {
  const checked = checkSweepConfig(raw, subject);
  const errors = [...checked.errors];
  const check = (model: unknown, field: string) => {
    if (typeof model !== 'string' || model === '') return; // the schema has said so
    try {
      createProvider(model);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      errors.push(`${field}: ${error.message}`);
    }
  };
  const models = Array.isArray(raw.models) ? (raw.models as unknown[]) : [];
  models.forEach((model, index) => check(model, modelField(index)));
  const agent = (typeof raw.agent === 'object' && raw.agent !== null ? raw.agent : {}) as Partial<Record<SplitRole, unknown>>;
  for (const role of ['planner', 'builder'] as const) check(agent[role], agentField(role));
  if (errors.length > 0 || checked.value === undefined) throw new InputError(errors.join('\n'));
  return checked.value;
}
