/*
 * Completion in a cell has two sources: the live kernel (what exists at run time) and the language server
 * (what the code says). Both often name the same thing; the operator sees it once, as the kernel gave it.
 */

/** The name a completion puts in the code (`os.path.join` and `join(` both give `join`): what the two are compared by. */
export function completionName(text: string): string {
  const match = /([A-Za-z_]\w*)\W*$/.exec(text);
  return match ? match[1] : text;
}

/**
 * The server's items that add to the kernel's: those whose name the kernel did not already list, in the
 * server's order. With no kernel items, all of them.
 */
export function itemsBesidesKernel<T>(
  kernelMatches: Iterable<string>,
  statics: readonly T[],
  labelOf: (item: T) => string,
): T[] {
  const kernelNames = new Set([...kernelMatches].map(completionName));
  const seen = new Set<string>();
  return statics.filter((item) => {
    const name = completionName(labelOf(item));
    if (kernelNames.has(name) || seen.has(labelOf(item))) return false;
    seen.add(labelOf(item));
    return true;
  });
}
