import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { writeReport } from '../../../analysis/report/write-report.js';
import { writeSyntheticRun } from '../../../bench/synthetic-runs.js';
import { CHROMIUM } from '../../../infra/test-groups.js';

/** Debian's chromium (`apt-get install chromium`, which .ci/run does); CI sets ALLOCBENCH_REQUIRE_BROWSER so it cannot skip there. */
const required = process.env.ALLOCBENCH_REQUIRE_BROWSER === '1';

function screenshot(page: string, out: string): PNG {
  execFileSync(
    CHROMIUM as string,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--window-size=1280,2400',
      `--screenshot=${out}`,
      pathToFileURL(page).href,
    ],
    {
      stdio: 'ignore',
      timeout: 60_000,
    },
  );
  return PNG.sync.read(readFileSync(out));
}

/**
 * Pixels in the figures' orange (Vega's second category colour, #f58518, with
 * its lighter tints): nothing else on the page is orange, the links are blue.
 */
function orangePixels(png: PNG): number {
  let count = 0;
  for (let i = 0; i < png.data.length; i += 4) {
    const [r, g, b] = [png.data[i] ?? 0, png.data[i + 1] ?? 0, png.data[i + 2] ?? 0];
    if (r > 200 && g > 100 && g < 200 && b < 120 && r - b > 120) count++;
  }
  return count;
}

describe('the HTML report in a real browser', () => {
  it.skipIf(!CHROMIUM && !required)('opens offline in headless Chromium with its figures drawn', async () => {
    expect(CHROMIUM, 'Debian chromium is not installed').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'allocbench-browser-'));
    const runDir = join(dir, 'run');
    writeSyntheticRun(runDir, {
      name: 'browser',
      models: ['policy/commit-at-1', 'policy/commit-at-2'],
      rungs: ['R0', 'R1', 'R2'],
      seeds: [2000, 2001, 2002, 2003],
    });
    const report = join(dir, 'report');
    await writeReport([runDir], report);
    const withFigures = screenshot(join(report, 'index.html'), join(dir, 'with.png'));
    const bare = join(dir, 'bare');
    cpSync(report, bare, { recursive: true });
    rmSync(join(bare, 'figures'), { recursive: true });
    const withoutFigures = screenshot(join(bare, 'index.html'), join(dir, 'without.png'));
    expect(withFigures.width).toBe(1280);
    // The figures open the page, drawn: without their files the same page shows no orange at all.
    expect(orangePixels(withoutFigures)).toBe(0);
    expect(orangePixels(withFigures)).toBeGreaterThan(1_000);
  });
});
