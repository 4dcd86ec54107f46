/**
 * The browser's own file or folder chooser ("Upload Files…", "Upload Folder…": the keyboard's way in). The input
 * is in the page only while the chooser is open; a folder comes back with each file's `webkitRelativePath`.
 */
export function pickFiles(folder: boolean): Promise<File[]> {
  const input = document.createElement('input');
  input.type = 'file';
  input.multiple = true;
  input.webkitdirectory = folder;
  input.hidden = true;
  input.setAttribute('aria-label', folder ? 'Folder to upload' : 'Files to upload');
  document.body.append(input);
  return new Promise<File[]>((resolve) => {
    const finish = (files: File[]) => {
      input.remove();
      resolve(files);
    };
    input.addEventListener('change', () => finish(Array.from(input.files ?? [])), { once: true });
    input.addEventListener('cancel', () => finish([]), { once: true });
    input.click();
  });
}
