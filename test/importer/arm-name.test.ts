import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseArmName } from '../../importer/arm-name.js';

/*
 * The reader is tested against what the authors' naming allows — a prefix per
 * rung, a model token (':' written '_', possibly with '-' and '_'), then suffix
 * tokens in any combination — not against a list of the arms that happen to exist.
 */

const PREFIXES = [
  ['urn_', 'R0'],
  ['urn_tool_', 'probe'],
  ['claim_solver_', 'R1'],
  ['claim_solver_code_', 'R2'],
  ['arm_a1_announce_', 'R3'],
] as const;

/** A model token may not contain a part that is itself a suffix token. */
const TOKEN = /^(n-announced|vocab-.*|efr\d+|class-bound-v\d+|mag\d+|canonical-structure|write-budget-v\d+|smoke|publication)$/;
const word = fc.stringMatching(/^[a-z][a-z0-9.]{0,8}$/);
const modelToken = fc
  .array(word, { minLength: 1, maxLength: 3 })
  .chain((parts) => fc.constantFrom(parts.join('-'), `${parts.join('-')}_latest`, parts.join('_')))
  .filter((token) => !token.split('_').some((part) => TOKEN.test(part)));
const vocab = fc.constantFrom('cauldron', 'quiver', 'treasure_chest', 'ball');

describe('arm names', () => {
  it('reads the rung, the model token and every suffix token in any combination', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PREFIXES),
        fc.option(modelToken, { nil: null }),
        fc.record({
          announced: fc.boolean(),
          vocab: fc.option(vocab, { nil: null }),
          efr: fc.option(fc.integer({ min: 1, max: 9 }), { nil: null }),
          classBound: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
          magnitude: fc.option(fc.constantFrom(100, 1000), { nil: null }),
          variants: fc.subarray(['canonical-structure', 'write-budget-v2', 'smoke']),
        }),
        ([prefix, rung], model, s) => {
          const tokens = [
            ...(s.announced ? ['n-announced'] : []),
            ...(s.vocab ? [`vocab-${s.vocab}`] : []),
            ...s.variants,
            ...(s.magnitude ? [`mag${s.magnitude}`] : []),
            ...(s.classBound ? [`class-bound-v${s.classBound}`] : []),
            ...(s.efr ? [`efr${s.efr}`] : []),
          ];
          const name = [prefix + (model ?? ''), ...tokens].join('_').replace(/_+/g, '_').replace(/_$/, '');
          const parsed = parseArmName(name);
          expect(parsed).not.toBeNull();
          expect(parsed?.rung).toBe(rung);
          expect(parsed?.modelToken).toBe(model);
          expect(parsed?.announceN).toBe(s.announced);
          expect(parsed?.vocab).toBe(s.vocab);
          expect(parsed?.emptyRetries).toBe(s.efr);
          expect(parsed?.classBound).toBe(s.classBound === null ? null : `v${s.classBound}`);
          expect(parsed?.magnitude).toBe(s.magnitude);
          expect([...(parsed?.variants ?? [])].sort()).toEqual([...s.variants].sort());
        },
      ),
    );
  });

  it('reads economic cells from their path: the rung (R2c is R2), B and K', () => {
    fc.assert(
      fc.property(
        fc.option(modelToken, { nil: null }),
        fc.constantFrom('R0', 'R2', 'R2c'),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 99 }),
        (model, rung, budget, charge) => {
          const parsed = parseArmName(`economic_surface_${model ?? ''}/${rung}/B_${budget}/K_${charge}`);
          expect(parsed).toMatchObject({ rung: rung === 'R0' ? 'R0' : 'R2', modelToken: model, budget, charge, announceN: null });
        },
      ),
    );
  });

  it('reads the R3 arm without a model token, and refuses names of no known format', () => {
    expect(parseArmName('arm_a1_announce_n-announced')).toMatchObject({ rung: 'R3', modelToken: null, announceN: true });
    expect(parseArmName('arm_a1_announce')).toMatchObject({ rung: 'R3', modelToken: null, announceN: false });
    for (const name of ['results_haiku', 'economic_surface_haiku/R1/B_1/K_0', 'economic_surface_haiku/R0/B_1', 'urn_haiku/seed_2000']) {
      expect(parseArmName(name)).toBeNull();
    }
  });
});
