import { useEffect, useState, type CSSProperties } from 'react';
import { createPortal } from 'react-dom';

interface ImageMetadata {
  width?: unknown;
  height?: unknown;
  unconfined?: unknown;
}

/**
 * An image output as Jupyter's metadata asks: `width`/`height` (a retina PNG carries half its pixel size,
 * so it is drawn at 2x density and stays sharp), `unconfined` (wider than the cell is allowed), and
 * matplotlib's `needs_background` (a transparent figure drawn for a light or dark page gets that page
 * behind it). A click opens it at full size. SVG goes through <img>: its scripts never run.
 */
export function ImageOutput({ mime, data, metadata }: { mime: string; data: string; metadata: unknown }) {
  const [enlarged, setEnlarged] = useState(false);
  const all = (metadata ?? {}) as Record<string, unknown>;
  const entry = (all[mime] ?? {}) as ImageMetadata;
  const style: CSSProperties = {};
  if (typeof entry.width === 'number') style.width = entry.width;
  if (typeof entry.height === 'number') style.height = entry.height;
  const unconfined = entry.unconfined === true;
  const background = all.needs_background === 'light' || all.needs_background === 'dark' ? all.needs_background : null;
  const src =
    mime === 'image/svg+xml'
      ? `data:image/svg+xml;charset=utf-8,${encodeURIComponent(data)}`
      : `data:${mime};base64,${data.replace(/\s+/g, '')}`;
  const alt = mime === 'image/svg+xml' ? 'SVG output' : `${mime.slice(6).toUpperCase()} output`;
  const classes = [
    'nb-out-image',
    unconfined ? 'nb-out-image-unconfined' : '',
    background ? `nb-needs-${background}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <>
      <button type="button" className="nb-out-image-button" title="Click to enlarge" onClick={() => setEnlarged(true)}>
        <img className={classes} alt={alt} src={src} style={style} />
      </button>
      {enlarged && <ImageViewer src={src} alt={alt} background={background} onClose={() => setEnlarged(false)} />}
    </>
  );
}

function ImageViewer({
  src,
  alt,
  background,
  onClose,
}: {
  src: string;
  alt: string;
  background: string | null;
  onClose: () => void;
}) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.stopPropagation();
      onClose();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
  // On the page's body: inside a cell (`content-visibility: auto`) a fixed overlay would be clipped to the cell.
  return createPortal(
    <div className="nb-image-viewer" role="dialog" aria-modal="true" aria-label="Enlarged image" onClick={onClose}>
      <img className={background ? `nb-needs-${background}` : undefined} src={src} alt={alt} />
    </div>,
    document.body,
  );
}
