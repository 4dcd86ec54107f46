/** VS Code's duplicate naming: "name copy.ext", then "name copy 2.ext", "name copy 3.ext"... */
export function duplicateName(name: string, attempt: number, isDir: boolean): string {
  const dot = isDir ? -1 : name.lastIndexOf('.');
  const hasExt = dot > 0;
  const stem = hasExt ? name.slice(0, dot) : name;
  const ext = hasExt ? name.slice(dot) : '';
  const suffix = attempt === 1 ? ' copy' : ` copy ${attempt}`;
  return `${stem}${suffix}${ext}`;
}
