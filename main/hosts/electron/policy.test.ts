import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allowsNavigation,
  applicationMenuTemplate,
  closeDecision,
  DIRTY_CLOSE_BUTTONS,
  dirtyCloseChoice,
  dirtyCloseMessage,
  devRendererUrl,
  externalLinkConfirmation,
  externalLinkOf,
  folderFromArgv,
  isPermissionAllowed,
  isTrustedSender,
  rendererEntryUrl,
  rendererResponseHeaders,
  windowOpenDecision,
} from './policy';

const own = { isKilnWindow: true, isMainFrame: true };

describe('Electron host policy', () => {
  it("serves Kiln's page unframeable: frame-ancestors 'none' and X-Frame-Options DENY over the file's own headers", () => {
    const headers = rendererResponseHeaders(new Headers({ 'content-type': 'text/html', 'x-frame-options': 'ALLOW' }));
    expect(headers.get('content-type')).toBe('text/html');
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it("accepts IPC only from the top frame of Kiln's own page", () => {
    expect(isTrustedSender({ ...own, frameUrl: 'kiln://app/index.html' }, null)).toBe(true);
    expect(isTrustedSender({ ...own, frameUrl: 'kiln://app/' }, null)).toBe(true);
    for (const frameUrl of [
      'https://evil.example/',
      'kiln://app.evil/index.html',
      'kiln://other/index.html',
      'file:///etc/passwd',
      'http://localhost:5173/',
      'about:blank',
      '',
      undefined,
      'not a url',
    ]) {
      expect(isTrustedSender({ ...own, frameUrl }, null), String(frameUrl)).toBe(false);
    }
    expect(isTrustedSender({ ...own, isMainFrame: false, frameUrl: 'kiln://app/index.html' }, null)).toBe(false);
    expect(isTrustedSender({ ...own, isKilnWindow: false, frameUrl: 'kiln://app/index.html' }, null)).toBe(false);
    // The dev server counts only when the build is unpackaged (devRendererUrl decides), and only its origin.
    expect(isTrustedSender({ ...own, frameUrl: 'http://localhost:5173/src/x' }, 'http://localhost:5173')).toBe(true);
    expect(isTrustedSender({ ...own, frameUrl: 'http://localhost:5173.evil.example/' }, 'http://localhost:5173')).toBe(
      false,
    );
    expect(isTrustedSender({ ...own, frameUrl: 'http://localhost:5174/' }, 'http://localhost:5173')).toBe(false);
  });

  it('honours ELECTRON_RENDERER_URL only unpackaged and only on loopback', () => {
    expect(devRendererUrl({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, false)).toBe('http://localhost:5173');
    expect(devRendererUrl({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, true)).toBeNull();
    expect(devRendererUrl({ ELECTRON_RENDERER_URL: 'https://evil.example' }, false)).toBeNull();
    expect(devRendererUrl({ ELECTRON_RENDERER_URL: 'file:///tmp/x.html' }, false)).toBeNull();
    expect(devRendererUrl({}, false)).toBeNull();
    expect(rendererEntryUrl(devRendererUrl({ ELECTRON_RENDERER_URL: 'http://localhost:5173' }, true))).toBe(
      'kiln://app/index.html',
    );
  });

  it('refuses every navigation, frame navigation and redirect', () => {
    for (const url of ['https://evil.example/', 'kiln://app/index.html', 'file:///etc/passwd', 'javascript:alert(1)']) {
      expect(allowsNavigation(url), url).toBe(false);
    }
  });

  it('never opens a window; only http(s) links may go to the browser, after a confirmation naming them', () => {
    expect(windowOpenDecision('https://jupyter.org/docs')).toEqual({
      action: 'deny',
      external: 'https://jupyter.org/docs',
    });
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'kiln://app/index.html',
      'smb://host/share',
      'vscode://x',
      'https://user:pw@evil.example/',
      'nope',
    ]) {
      expect(windowOpenDecision(url), url).toEqual({ action: 'deny', external: null });
      expect(externalLinkOf(url), url).toBeNull();
    }
    const confirm = externalLinkConfirmation('https://jupyter.org/docs');
    expect(confirm.detail).toBe('https://jupyter.org/docs');
    expect(confirm.buttons[confirm.cancelId]).toBe('Cancel');
    expect(confirm.defaultId).toBe(confirm.cancelId);
  });

  it("grants clipboard reads to Kiln's own top frame only, for pasting cells", () => {
    const page = (url: string | undefined, isMainFrame = true) => ({ url, isMainFrame });
    expect(isPermissionAllowed('clipboard-read', page('kiln://app/index.html'))).toBe(true);
    // The check handler may give only the requesting origin.
    expect(isPermissionAllowed('clipboard-read', page('kiln://app'))).toBe(true);
    expect(isPermissionAllowed('clipboard-read', page('http://localhost:5173/x'), 'http://localhost:5173')).toBe(true);
    for (const url of [
      'https://evil.example/',
      'kiln://app.evil/index.html',
      'kiln://other/',
      'http://localhost:5173/',
      'file:///tmp/x.html',
      'null',
      '',
      undefined,
    ]) {
      expect(isPermissionAllowed('clipboard-read', page(url)), String(url)).toBe(false);
    }
    // A sandboxed output's frame inside Kiln's page, and the dev server in a packaged build (devUrl null).
    expect(isPermissionAllowed('clipboard-read', page('kiln://app/index.html', false))).toBe(false);
    expect(isPermissionAllowed('clipboard-read', page('http://localhost:5173/x'), null)).toBe(false);
    // No other permission follows from being Kiln's own page.
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'deprecated-sync-clipboard-read',
    ])
      expect(isPermissionAllowed(permission, page('kiln://app/index.html')), permission).toBe(false);
  });

  it('grants only clipboard writes among permissions to any other requester', () => {
    expect(isPermissionAllowed('clipboard-sanitized-write')).toBe(true);
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'clipboard-read',
      'fullscreen',
      'hid',
      'serial',
    ]) {
      expect(isPermissionAllowed(permission), permission).toBe(false);
    }
  });

  it("has no developer tools in a packaged build's menu", () => {
    const roles = (template: ReturnType<typeof applicationMenuTemplate>) =>
      JSON.stringify(template)
        .match(/"role":"\w+"/g)
        ?.map((r) => r.slice(8, -1)) ?? [];
    expect(roles(applicationMenuTemplate(true, 'linux'))).not.toContain('viewMenu');
    expect(roles(applicationMenuTemplate(true, 'linux'))).not.toContain('toggleDevTools');
    expect(roles(applicationMenuTemplate(false, 'linux'))).toContain('viewMenu');
    expect(roles(applicationMenuTemplate(true, 'darwin'))[0]).toBe('appMenu');
  });

  it('reads the folder of a launch, packaged or not, relative to its working folder', () => {
    expect(folderFromArgv(['/opt/Kiln/kiln', 'proj'], true, '/home/me', path.resolve)).toBe('/home/me/proj');
    expect(folderFromArgv(['electron', '/repo', '--flag', '/abs/ws'], false, '/x', path.resolve)).toBe('/abs/ws');
    expect(folderFromArgv(['/opt/Kiln/kiln', '--no-sandbox'], true, '/home/me', path.resolve)).toBeNull();
  });
});

describe('closing the window with dirty tabs', () => {
  it('asks only with hot exit off, a dirty tab, and no answer given yet', () => {
    expect(closeDecision({ hotExit: true, dirtyCount: 3, confirmed: false })).toBe('close');
    expect(closeDecision({ hotExit: false, dirtyCount: 0, confirmed: false })).toBe('close');
    expect(closeDecision({ hotExit: false, dirtyCount: 1, confirmed: false })).toBe('ask');
    expect(closeDecision({ hotExit: false, dirtyCount: 1, confirmed: true })).toBe('close');
  });

  it("offers Save All / Don't Save / Cancel, and anything but the first two cancels", () => {
    expect([...DIRTY_CLOSE_BUTTONS]).toEqual(['Save All', "Don't Save", 'Cancel']);
    expect(dirtyCloseChoice(0)).toBe('saveAll');
    expect(dirtyCloseChoice(1)).toBe('dontSave');
    expect(dirtyCloseChoice(2)).toBe('cancel');
    expect(dirtyCloseChoice(-1)).toBe('cancel');
  });

  it('names one file, or lists the first five of many', () => {
    expect(dirtyCloseMessage(['notes/todo.txt']).message).toBe('Do you want to save the changes you made to todo.txt?');
    const many = dirtyCloseMessage(['a.txt', 'b/c.ipynb', 'd', 'e', 'f', 'g', 'h']);
    expect(many.message).toBe('Do you want to save the changes to the following 7 files?');
    expect(many.detail).toBe(
      "a.txt\nc.ipynb\nd\ne\nf\n…and 2 more\n\nYour changes will be lost if you don't save them.",
    );
  });
});
