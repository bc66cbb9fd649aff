import type { Browser } from 'playwright-core';

/** The system's Chromium (Debian's package), as the browser tests and bench:view drive it, headless and offline. */
export async function launchHeadlessChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
