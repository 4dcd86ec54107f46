/**
 * "Export as PDF" prints Kiln's own rendered notebook (math, charts and all; no TeX needed): print.css
 * lays out only the marked notebook, all its cells, for paper; the browser's print dialog (or Electron's)
 * offers "Save as PDF".
 */
export function printNotebook(path: string): void {
  const section = document.querySelector<HTMLElement>(`section.nb[data-path="${CSS.escape(path)}"]`);
  if (!section) return;
  document.body.classList.add('kiln-printing');
  section.classList.add('nb-printing');
  const done = () => {
    document.body.classList.remove('kiln-printing');
    section.classList.remove('nb-printing');
  };
  window.addEventListener('afterprint', done, { once: true });
  window.print();
}
