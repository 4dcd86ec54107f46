import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileBreakpoints } from '../../shared/contract';
import { MemoryStore } from '../prefs';
import { FileBreakpointStore, kernelPathOf, workspacePathOf } from './file-breakpoints';

const ROOT = path.join(path.sep, 'work', 'project');

function storeWith(initial: FileBreakpoints): { files: FileBreakpointStore; fired: FileBreakpoints[] } {
  const files = new FileBreakpointStore(ROOT, new MemoryStore());
  for (const [rel, lines] of Object.entries(initial)) files.set(rel, lines);
  const fired: FileBreakpoints[] = [];
  files.onDidChange((all) => fired.push(all));
  return { files, fired };
}

describe('file breakpoint paths', () => {
  it('maps a workspace path to the kernel path and back', () => {
    const kernelPath = kernelPathOf(ROOT, 'src/pkg/mod.py');
    expect(kernelPath).toBe(path.join(ROOT, 'src', 'pkg', 'mod.py'));
    expect(workspacePathOf(ROOT, kernelPath)).toBe('src/pkg/mod.py');
  });

  it('names no workspace path for a file outside it, a sibling folder sharing its prefix, or a relative path', () => {
    expect(workspacePathOf(ROOT, path.join(path.sep, 'usr', 'lib', 'python3', 'json', '__init__.py'))).toBeNull();
    expect(workspacePathOf(ROOT, `${ROOT}-other${path.sep}mod.py`)).toBeNull();
    expect(workspacePathOf(ROOT, ROOT)).toBeNull();
    expect(workspacePathOf(ROOT, 'src/mod.py')).toBeNull();
    expect(workspacePathOf(ROOT, path.join(ROOT, 'src', '..', '..', 'elsewhere.py'))).toBeNull();
  });
});

describe('file breakpoints kept in the store', () => {
  it('keeps each workspace root apart and persists in the store', () => {
    const store = new MemoryStore();
    new FileBreakpointStore(ROOT, store).set('src/a.py', [4, 2, 4]);
    new FileBreakpointStore(`${ROOT}2`, store).set('src/a.py', [9]);
    expect(new FileBreakpointStore(ROOT, store).all()).toEqual({ 'src/a.py': [2, 4] });
    expect(new FileBreakpointStore(`${ROOT}2`, store).all()).toEqual({ 'src/a.py': [9] });
  });

  it('refuses a file that is not Python', () => {
    const { files } = storeWith({});
    expect(() => files.set('notes.md', [1])).toThrow(expect.objectContaining({ code: 'E_BAD_REQUEST' }));
    expect(files.all()).toEqual({});
  });

  it("carries a renamed file's breakpoints to its new path", () => {
    const { files, fired } = storeWith({ 'src/a.py': [3], 'src/b.py': [1] });
    expect(
      files.applyChange({ type: 'moved', from: 'src/a.py', to: 'src/renamed.py', isDir: false, origin: 'operator' }),
    ).toBe(true);
    expect(files.all()).toEqual({ 'src/renamed.py': [3], 'src/b.py': [1] });
    expect(fired).toEqual([{ 'src/renamed.py': [3], 'src/b.py': [1] }]);
  });

  it('carries every file inside a moved folder, and nothing outside it that shares its prefix', () => {
    const { files } = storeWith({ 'src/pkg/a.py': [1], 'src/pkg/sub/b.py': [2], 'src/pkg2/c.py': [3] });
    files.applyChange({ type: 'moved', from: 'src/pkg', to: 'lib/pkg', isDir: true, origin: 'external' });
    expect(files.all()).toEqual({ 'lib/pkg/a.py': [1], 'lib/pkg/sub/b.py': [2], 'src/pkg2/c.py': [3] });
  });

  it('replaces the breakpoints of a file moved over', () => {
    const { files } = storeWith({ 'src/new.py': [5], 'src/old.py': [1] });
    files.applyChange({ type: 'moved', from: 'src/new.py', to: 'src/old.py', isDir: false, origin: 'operator' });
    expect(files.all()).toEqual({ 'src/old.py': [5] });
  });

  it('drops the breakpoints of a deleted file or folder', () => {
    const { files } = storeWith({ 'src/a.py': [1], 'src/pkg/b.py': [2], 'src/pkgx.py': [3] });
    files.applyChange({ type: 'deleted', path: 'src/a.py', isDir: false, origin: 'external' });
    files.applyChange({ type: 'deleted', path: 'src/pkg', isDir: true, origin: 'operator' });
    expect(files.all()).toEqual({ 'src/pkgx.py': [3] });
  });

  it('changes nothing, and says nothing, for a change that touches no breakpoint', () => {
    const { files, fired } = storeWith({ 'src/a.py': [1] });
    expect(files.applyChange({ type: 'moved', from: 'docs', to: 'doc', isDir: true, origin: 'operator' })).toBe(false);
    expect(files.applyChange({ type: 'updated', path: 'src/a.py', isDir: false, origin: 'operator' })).toBe(false);
    expect(files.applyChange({ type: 'created', path: 'src/b.py', isDir: false, origin: 'operator' })).toBe(false);
    expect(fired).toEqual([]);
  });
});
