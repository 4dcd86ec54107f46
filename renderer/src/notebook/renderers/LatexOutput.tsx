import { useMemo } from 'react';
import { useLazy } from './lazy';
import { katexIfLoaded, latexToHtmlCached, loadKatex } from './math';

/** A `text/latex` output (sympy, IPython.display.Math) typeset; its source until KaTeX has loaded. */
export function LatexOutput({ latex }: { latex: string }) {
  const katex = useLazy(katexIfLoaded, loadKatex);
  const html = useMemo(() => latexToHtmlCached(katex, latex), [katex, latex]);
  return <div className="nb-out-latex" dangerouslySetInnerHTML={{ __html: html }} />;
}
