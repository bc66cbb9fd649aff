import { readFileSync } from 'node:fs';

/*
 * test/fixtures/numpy-default-rng.json is numpy's own output, the external
 * reference for analysis/stats/numpy-random.ts: its "how" field names the numpy
 * version and every expression, and test/fixtures/numpy-default-rng.py wrote it.
 */
export interface FixtureCase {
  readonly expression: string;
  readonly seed: number;
  /** The generator's successive integers(low, high, size) calls. */
  readonly calls: readonly { readonly low: number; readonly high: number; readonly size: readonly number[] }[];
  readonly shape: readonly number[];
  /** Entries row-major, each as `width` base-36 digits of entry - offset. */
  readonly offset: number;
  readonly width: number;
  readonly base36: string;
  readonly sha256Int64le: string;
}

export interface Fixture {
  readonly how: readonly string[];
  readonly numpy: string;
  readonly randomRaw: readonly string[];
  readonly seedSequenceUint64: readonly string[];
  readonly initialState: { readonly state: string; readonly inc: string };
  readonly cases: readonly FixtureCase[];
}

export const fixture = JSON.parse(readFileSync(new URL('../../fixtures/numpy-default-rng.json', import.meta.url), 'utf8')) as Fixture;

/** A case's entries, row-major, as numpy gave them. */
export function fixtureEntries(c: FixtureCase): number[] {
  const entries: number[] = [];
  for (let at = 0; at < c.base36.length; at += c.width) entries.push(parseInt(c.base36.slice(at, at + c.width), 36) + c.offset);
  return entries;
}

/** The case whose expression is exactly `expression`. */
export function fixtureCase(expression: string): FixtureCase {
  const found = fixture.cases.find((c) => c.expression === expression);
  if (found === undefined) throw new Error(`no fixture case ${expression}`);
  return found;
}
