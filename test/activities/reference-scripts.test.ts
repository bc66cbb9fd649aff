import { afterAll, describe, expect, it } from 'vitest';
import { FAMILIES, familyOfInputs } from '../../core/families/registry.js';
import { createRng } from '../../core/random/rng.js';
import { matchesGold } from '../../core/scripts/answer-match.js';
import { REFERENCE_SCRIPTS } from '../../activities/providers/reference-scripts.js';
import { ScriptSandbox } from '../../activities/sandbox/script-sandbox.js';
import { HAVE_PAPER_RUNS, NO_PAPER_RUNS, paperStreams } from '../core/paper-streams.js';

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
          const gold = family.solve(inputs).toString();
          expect(
            outcome.ok && matchesGold(outcome.value, gold),
            `${family.name} ${JSON.stringify(inputs)}: ${JSON.stringify(outcome)} vs ${gold}`,
          ).toBe(true);
        }
      }
    },
  );

  it.skipIf(!HAVE_PAPER_RUNS)(
    HAVE_PAPER_RUNS
      ? "give the stored gold on every distinct item of the paper's streams, the family told by its keys"
      : `skipped: ${NO_PAPER_RUNS}`,
    async () => {
      const seen = new Set<string>();
      const wrong: string[] = [];
      for (const item of paperStreams().flatMap((file) => file.items)) {
        const key = JSON.stringify(item.inputs);
        if (seen.has(key)) continue;
        seen.add(key);
        const family = familyOfInputs(item.inputs);
        expect(family?.name, key).toBe(item.family);
        const outcome = await sandbox.run(REFERENCE_SCRIPTS[item.family as keyof typeof REFERENCE_SCRIPTS], item.inputs);
        if (!(outcome.ok && matchesGold(outcome.value, String(item.gold)))) wrong.push(`${item.family} ${key}: ${JSON.stringify(outcome)}`);
      }
      expect(wrong).toEqual([]);
    },
  );
});
