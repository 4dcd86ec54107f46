/** Debian's Chromium with the flags this offline machine needs; Playwright never downloads a browser. */
export const CHROMIUM_PATH = process.env.KILN_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
