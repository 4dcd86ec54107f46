/** The Agent panel's glyphs (inline SVG: no icon font, no CDN). */
const base = { viewBox: '0 0 16 16', 'aria-hidden': true, focusable: false } as const;

export function AgentIcon({ size = 14 }: { size?: number }) {
  return (
    <svg {...base} width={size} height={size} className="as-agent-icon">
      <rect x="2.5" y="4.5" width="11" height="8.5" rx="2.5" fill="none" stroke="currentColor" strokeWidth="1.3" />
      <path d="M8 1.8v2.7" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" />
      <circle cx="8" cy="1.8" r="1" fill="currentColor" />
      <circle cx="5.8" cy="8.5" r="1.1" fill="currentColor" />
      <circle cx="10.2" cy="8.5" r="1.1" fill="currentColor" />
      <path d="M6.3 11h3.4" stroke="currentColor" strokeWidth="1.2" strokeLinecap="round" />
    </svg>
  );
}

export function SendGlyph() {
  return (
    <svg {...base} width={13} height={13}>
      <path d="M2 8l11-5.5L10.5 14 8 9z" fill="currentColor" />
    </svg>
  );
}

export function StopGlyph() {
  return (
    <svg {...base} width={11} height={11}>
      <rect x="3" y="3" width="10" height="10" rx="1.5" fill="currentColor" />
    </svg>
  );
}

export function TrashGlyph() {
  return (
    <svg {...base} width={13} height={13}>
      <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5" fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
    </svg>
  );
}

export function CheckGlyph() {
  return (
    <svg {...base} width={12} height={12}>
      <path d="M3 8.5l3 3 7-7" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function ErrorGlyph() {
  return (
    <svg {...base} width={12} height={12}>
      <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeWidth="1.4" />
      <path d="M8 4.8v3.8" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
      <circle cx="8" cy="11" r="0.9" fill="currentColor" />
    </svg>
  );
}

export function WarnGlyph() {
  return (
    <svg {...base} width={14} height={14}>
      <path d="M8 1.8l6.5 11.7H1.5z" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
      <path d="M8 6v3.6" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />
      <circle cx="8" cy="11.6" r="0.9" fill="currentColor" />
    </svg>
  );
}

export function SpinnerGlyph() {
  return (
    <svg {...base} width={12} height={12} className="as-spin">
      <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeOpacity="0.25" strokeWidth="2" />
      <path d="M8 2a6 6 0 0 1 6 6" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

export function ChevronGlyph({ open }: { open: boolean }) {
  return (
    <svg {...base} width={10} height={10} style={{ transform: open ? 'rotate(90deg)' : undefined, transition: 'transform 0.12s' }}>
      <path d="M6 3.5L10.5 8 6 12.5" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
