import { describe, expect, it } from 'vitest';
import { loadsFromNetwork, withoutNetworkLoads } from './offline-html';

describe('withoutNetworkLoads', () => {
  it("drops nbconvert's CDN scripts and MathJax config, keeps inline styles and content", () => {
    const page = [
      '<html><head><style>.x{}</style>',
      '<script src="https://cdn.example/require.min.js"></script>',
      '<script type="text/x-mathjax-config">MathJax.Hub.Config({})</script>',
      '<script src="//cdn.example/mathjax.js?config=TeX"></script>',
      '<link rel="stylesheet" href="https://cdn.example/a.css">',
      '</head><body><p>kept</p><a href="https://example.com">link</a></body></html>',
    ].join('\n');
    expect(loadsFromNetwork(page)).toBe(true);
    const offline = withoutNetworkLoads(page);
    expect(loadsFromNetwork(offline)).toBe(false);
    expect(offline).toContain('<style>.x{}</style>');
    expect(offline).toContain('<p>kept</p>');
    expect(offline).toContain('href="https://example.com"');
    expect(offline).not.toContain('MathJax');
  });
});
