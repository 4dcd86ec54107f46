import * as fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KilnError } from '../../shared/errors';
import { notebookExportHandlers } from './index';
import { defaultPdfPath, exportPdf, PDF_OPTIONS, withPdfExtension } from './pdf';

const PDF = new TextEncoder().encode('%PDF-1.7\n%fake\n');

describe('Export as PDF (Electron printToPDF)', () => {
  it('starts the dialog beside the notebook, never outside the workspace', () => {
    expect(defaultPdfPath('/ws', 'reports/q1.ipynb')).toBe('/ws/reports/q1.pdf');
    expect(defaultPdfPath('/ws', 'Q1.IPYNB')).toBe('/ws/Q1.pdf');
    expect(() => defaultPdfPath('/ws', '../elsewhere/x.ipynb')).toThrow(KilnError);
    expect(() => defaultPdfPath('/ws', '../ws2/x.ipynb')).toThrow(/outside the workspace/);
    expect(withPdfExtension('/tmp/report')).toBe('/tmp/report.pdf');
    expect(withPdfExtension('/tmp/report.PDF')).toBe('/tmp/report.PDF');
  });

  it('asks where first, prints only then, and writes the PDF where the operator chose', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kiln-pdf-'));
    try {
      const steps: string[] = [];
      const file = await exportPdf(
        {
          chooseFile: async (defaultPath) => {
            steps.push(`ask ${defaultPath}`);
            return path.join(dir, 'out');
          },
          print: async () => {
            steps.push('print');
            return PDF;
          },
          write: async (target, bytes) => {
            steps.push('write');
            await fs.writeFile(target, bytes);
          },
        },
        '/ws',
        'a.ipynb',
      );
      expect(steps).toEqual(['ask /ws/a.pdf', 'print', 'write']);
      expect(file).toBe(path.join(dir, 'out.pdf'));
      expect(await fs.readFile(file!)).toEqual(Buffer.from(PDF));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('prints and writes nothing when the operator cancels the dialog', async () => {
    const steps: string[] = [];
    const file = await exportPdf(
      {
        chooseFile: async () => null,
        print: async () => (steps.push('print'), PDF),
        write: async () => void steps.push('write'),
      },
      '/ws',
      'a.ipynb',
    );
    expect(file).toBeNull();
    expect(steps).toEqual([]);
  });

  it('keeps backgrounds (coloured outputs) and lets the print stylesheet size the page', () => {
    expect(PDF_OPTIONS).toMatchObject({ printBackground: true, preferCSSPageSize: true });
  });

  it('leaves the print dialog to the page where the host has no printToPDF (the web host)', async () => {
    expect(await notebookExportHandlers(null)['notebook.exportPdf']({ path: 'a.ipynb' })).toEqual({
      status: 'print-dialog',
    });
  });
});
