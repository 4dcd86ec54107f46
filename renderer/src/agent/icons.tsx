/** The edit assistant's own glyphs (inline SVG: no icon font, no CDN). */
const base = { viewBox: '0 0 16 16', 'aria-hidden': true, focusable: false } as const;

export function SparkIcon({ size = 14 }: { size?: number }) {
  return (
    <svg {...base} width={size} height={size} className="ea-spark">
      <path d="M8 1l1.7 4.6L14.5 7 9.7 8.7 8 13.5 6.3 8.7 1.5 7l4.8-1.4z" fill="currentColor" />
      <path d="M13 11l.6 1.6 1.4.4-1.4.5L13 15l-.6-1.5-1.4-.5 1.4-.4z" fill="currentColor" opacity="0.7" />
    </svg>
  );
}

export function WarningIcon() {
  return (
    <svg {...base} width={14} height={14} className="ea-warn-icon">
      <path d="M8 1.8l6.5 11.7H1.5z" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
      <path d="M8 6v3.6" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />
      <circle cx="8" cy="11.6" r="0.9" fill="currentColor" />
    </svg>
  );
}

export function SendIcon() {
  return (
    <svg {...base} width={14} height={14}>
      <path d="M2 8l11-5.5L10.5 14 8 9z" fill="currentColor" />
    </svg>
  );
}

export function StopIcon() {
  return (
    <svg {...base} width={12} height={12}>
      <rect x="3" y="3" width="10" height="10" rx="1.5" fill="currentColor" />
    </svg>
  );
}

export function TrashIcon() {
  return (
    <svg {...base} width={14} height={14}>
      <path d="M2.5 4h11M6 4V2.5h4V4M4 4l.7 9.5h6.6L12 4" fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
    </svg>
  );
}

export function CheckIcon() {
  return (
    <svg {...base} width={14} height={14}>
      <path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function XIcon() {
  return (
    <svg {...base} width={13} height={13}>
      <path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
    </svg>
  );
}
