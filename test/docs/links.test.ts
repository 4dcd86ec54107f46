import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * The README is the front door and docs/ the guide behind it: every relative link in them (and in bench/README.md)
 * must reach a file that exists and, with a #fragment, a heading that exists in it, so a moved or renamed page
 * or section shows here instead of as a dead link.
 */

const ROOT = path.resolve(__dirname, '../..');
const DOCS = path.join(ROOT, 'docs');
const PAGES = [
  'README.md',
  'bench/README.md',
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length));
}

/** The anchors of a page's headings (outside fenced code), numbered as GitHub numbers repeats. */
function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const base = headingAnchor(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count ? `${base}-${count}` : base);
  }
  return anchors;
}

/** Every relative link of a page: [text](target) and <a href>, outside code. */
function relativeLinks(page: string): string[] {
  const text = prose(readFileSync(path.join(ROOT, page), 'utf8'));
  const targets = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target]) => target);
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('documentation links', () => {
  it('finds the pages it checks', () => {
    expect(PAGES).toContain('docs/architecture.md');
    expect(PAGES.length).toBeGreaterThan(10);
  });

  for (const page of PAGES) {
    it(`${page}: every relative link reaches a file and heading that exist`, () => {
      const broken: string[] = [];
      for (const link of relativeLinks(page)) {
        const [file, fragment] = link.split('#') as [string, string | undefined];
        const target = file
          ? path.resolve(path.dirname(path.join(ROOT, page)), decodeURI(file))
          : path.join(ROOT, page);
        if (!target.startsWith(ROOT) || !existsSync(target)) {
          broken.push(`${link}: no such file`);
          continue;
        }
        if (fragment === undefined) continue;
        if (!statSync(target).isFile() || !target.endsWith('.md')) {
          broken.push(`${link}: a #fragment needs a Markdown page`);
          continue;
        }
        if (!anchorsOf(target).has(fragment)) broken.push(`${link}: no heading with that anchor`);
      }
      expect(broken).toEqual([]);
    });
  }

  it('docs/README.md lists every page of docs/', () => {
    const index = relativeLinks('docs/README.md');
    const unlisted = PAGES.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md').filter(
      (page) => !index.includes(path.basename(page)),
    );
    expect(unlisted).toEqual([]);
  });

  it('the README stays a front door: at most 150 lines, with a link to each page of docs/', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
    const links = relativeLinks('README.md');
    const missing = PAGES.filter((page) => page.startsWith('docs/') && !links.includes(page));
    expect(missing).toEqual([]);
  });
});

describe('headingAnchor', () => {
  it('makes the anchors GitHub makes', () => {
    expect(headingAnchor('The audit log (`scripts/`)')).toBe('the-audit-log-scripts');
    expect(headingAnchor('Undo of an Agent turn or MCP batch')).toBe('undo-of-an-agent-turn-or-mcp-batch');
    expect(headingAnchor('Out of Kiln, and paths into sessions')).toBe('out-of-kiln-and-paths-into-sessions');
  });
});
