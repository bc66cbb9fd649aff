import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { latin1Source } from '../../infra/latin1-source.js';
import { cliPath } from '../../infra/project-root.js';

describe('the built allocbench command', () => {
  it('is Latin-1 only in every module, so V8 holds their sources one byte a character', () => {
    const bin = dirname(cliPath());
    const files = [cliPath(), ...readdirSync(join(bin, 'chunks')).map((name) => join(bin, 'chunks', name))];
    const beyond = files.filter((file) => /[^\u0000-\u00ff]/.test(readFileSync(file, 'utf8')));
    expect(beyond).toEqual([]);
  });

  it('escapes characters beyond Latin-1 to the same characters', () => {
    const source = "const note = `B − A – ${'…'}`; // a dash — in a comment\nreturn [note, /→+/.test('→→'), 'é'];";
    const escaped = latin1Source(source);
    expect(escaped).toMatch(/^[\u0000-\u00ff]*$/);
    expect(new Function(escaped)()).toEqual(new Function(source)());
  });
});
