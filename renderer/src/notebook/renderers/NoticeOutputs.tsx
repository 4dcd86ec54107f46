import { useMemo } from 'react';
import type { MimeBundle } from '../../../../shared/contract';
import { joinMultiline } from '../../../../shared/contract';
import { formatBytes } from '../../ui';

/**
 * The outputs Kiln names instead of drawing: a PDF (a link that saves it, as JupyterLab's PDF viewer offers),
 * JavaScript (withheld: an output's scripts never run in Kiln) and an ipywidgets view (it needs a widget
 * manager talking to the kernel, which Kiln does not have). Each says what it is, so no output is blank.
 */

/** A base64 PDF as a download link; the data URL is built on first render of this output only. */
export function PdfOutput({ data }: { data: string }) {
  const href = useMemo(() => `data:application/pdf;base64,${data.replace(/\s+/g, '')}`, [data]);
  const bytes = Math.floor((data.replace(/\s+/g, '').length * 3) / 4);
  return (
    <div className="nb-out-note nb-out-pdf">
      PDF output ({formatBytes(bytes)}):{' '}
      <a href={href} download="output.pdf">
        Download PDF
      </a>
    </div>
  );
}

export function JavaScriptOutput() {
  return (
    <div className="nb-out-note" role="note">
      JavaScript output not run: Kiln never runs an output&apos;s scripts.
    </div>
  );
}

/** A widget view: its text/plain repr (what the kernel says the widget is) and why it is not interactive. */
export function WidgetOutput({ bundle }: { bundle: MimeBundle }) {
  const plain = bundle['text/plain'];
  const repr = typeof plain === 'string' || Array.isArray(plain) ? joinMultiline(plain as string | string[]) : '';
  return (
    <div className="nb-out-note" role="note">
      {repr ? <code className="nb-out-widget-repr">{repr}</code> : 'A Jupyter widget'}: widgets need a widget manager,
      which Kiln does not have, so this one is not interactive here.
    </div>
  );
}
