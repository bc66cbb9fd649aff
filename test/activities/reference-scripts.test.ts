import { afterAll, describe, expect, it } from 'vitest';
import { FAMILIES } from '../../core/families/registry.js';
import { createRng } from '../../core/random/rng.js';
import { matchesGold } from '../../core/scripts/answer-match.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { ScriptSandbox } from '../../activities/sandbox/script-sandbox.js';

const sandbox = new ScriptSandbox();
afterAll(() => sandbox.dispose());

describe("the R3 reference builder's scripts", () => {
  it.each(FAMILIES.map((family) => [family.name, family] as const))(
    'solve %s exactly in the sandbox, at magnitudes 100 and 1000',
    async (_, family) => {
      for (const magnitude of [100, 1000]) {
        const rng = createRng(magnitude + FAMILIES.indexOf(family));
        for (let i = 0; i < 25; i++) {
          const inputs = family.sample(rng, magnitude);
          const outcome = await sandbox.run(REFERENCE_SCRIPTS[family.name], inputs);
          const gold = family.solve(inputs);
          expect(
            outcome.ok && matchesGold(outcome.value, gold),
            `${family.name} ${JSON.stringify(inputs)}: ${JSON.stringify(outcome)} vs ${gold}`,
          ).toBe(true);
        }
      }
    },
  );
});
