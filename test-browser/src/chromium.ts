import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`). A browser is never downloaded. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Declares the suite when Chromium is installed; otherwise says so loudly and skips it, so
 * `pnpm test` passes on a machine without a browser (CI installs one).
 */
export function describeWithChromium(name: string, fn: () => void): void {
  if (!chromiumAvailable()) {
    console.warn(
      `SKIPPED: "${name}" needs Chromium at ${CHROMIUM_PATH}; install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
    describe.skip(name, () => {
      it('needs Chromium', () => undefined);
    });
    return;
  }
  describe(name, fn);
}
