import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { parseSweepConfig } from '../../../core/sweep/sweep-config.js';
import { projectRoot } from '../../../infra/project-root.js';
import { SWEEP_SCHEMA_FILE, sweepJsonSchema, sweepJsonSchemaText } from '../../../core/sweep/sweep-json-schema.js';
import { runCli } from '../../cli/run-cli.js';

const root = projectRoot();
const schemaPath = join(root, SWEEP_SCHEMA_FILE);
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(sweepJsonSchema());

/** Every sweep file the repository ships. */
const shipped = [
  ...readdirSync(join(root, 'sweeps'))
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => join('sweeps', name)),
  join('rl', 'eval-sweep.yaml'),
];

describe('the JSON Schema of sweep files', () => {
  it('is what `allocbench schema sweep` prints, and the committed copy is current', () => {
    const printed = runCli('schema', 'sweep');
    expect(printed.status).toBe(0);
    expect(printed.stdout).toBe(sweepJsonSchemaText());
    // If this fails after a change to core/sweep/sweep-config.ts: npx allocbench schema sweep > config/sweep.schema.json
    expect(readFileSync(schemaPath, 'utf8')).toBe(sweepJsonSchemaText());
  });

  it.each(shipped)('%s names the schema in $schema, and both the JSON Schema and the sweep parser accept it', (file) => {
    const raw = parseYaml(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;
    expect(resolve(dirname(join(root, file)), String(raw.$schema))).toBe(schemaPath);
    expect(validate(raw), JSON.stringify(validate.errors)).toBe(true);
    expect(() => parseSweepConfig(raw, file)).not.toThrow();
  });

  it('refuses what the sweep parser refuses: an unknown field, a rung that does not exist, a field an arm cannot take', () => {
    const demo = parseYaml(readFileSync(join(root, 'sweeps', 'demo.yaml'), 'utf8')) as Record<string, unknown>;
    for (const broken of [
      { ...demo, window_size: 4 },
      { ...demo, rungs: ['R4'] },
      { ...demo, arms: [{ name: 'a', seeds: [2000] }] },
      { ...demo, seeds: 2000 },
    ]) {
      expect(validate(broken), JSON.stringify(broken)).toBe(false);
      expect(() => parseSweepConfig(broken)).toThrow();
    }
  });
});
