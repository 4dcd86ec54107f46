/** Inline SVG icons (no icon font, no CDN), sized for 22px rows. */

const common = { width: 16, height: 16, viewBox: '0 0 16 16', 'aria-hidden': true, focusable: false } as const;

export function ChevronIcon({ open }: { open: boolean }) {
  return (
    <svg {...common} className={`chevron${open ? ' open' : ''}`}>
      <path d="M6 4l4 4-4 4" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

export function FolderIcon({ open }: { open: boolean }) {
  return open ? (
    <svg {...common} className="icon icon-folder">
      <path d="M1.5 3.5h4.2l1.3 1.4h6.5v1.6H4.2L1.5 12.5z" fill="currentColor" opacity="0.55" />
      <path d="M1.5 12.5l2.3-6h11l-2.4 6z" fill="currentColor" />
    </svg>
  ) : (
    <svg {...common} className="icon icon-folder">
      <path d="M1.5 3.5h4.2l1.3 1.4h7.5v7.6h-13z" fill="currentColor" />
    </svg>
  );
}

const FILE_COLOURS: Record<string, string> = {
  py: '#3572a5', ts: '#3178c6', tsx: '#3178c6', js: '#d4b400', jsx: '#d4b400', json: '#a67f00', md: '#4f8cc9',
  ipynb: '#e46e2e', csv: '#2e9c5e', txt: '#8a8f98', html: '#e34c26', css: '#663399', yaml: '#cb171e', yml: '#cb171e',
  sh: '#4eaa25', toml: '#9c4221', rs: '#dea584', go: '#00add8', c: '#555', h: '#555', cpp: '#f34b7d', java: '#b07219',
};

function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export function FileIcon({ name }: { name: string }) {
  const ext = extOf(name);
  const colour = FILE_COLOURS[ext] ?? '#8a8f98';
  const label = ext === 'ipynb' ? 'NB' : ext === 'md' ? 'M' : ext === 'py' ? 'PY' : ext === 'json' ? '{}' : ext.slice(0, 2).toUpperCase();
  // The badge text is CSS content so it never joins the entry's name in the DOM text.
  return (
    <span className="icon icon-file" data-label={label} data-short={label.length < 2 ? 'true' : undefined} style={{ color: colour }} aria-hidden>
      <svg width={16} height={16} viewBox="0 0 16 16" focusable={false}>
        <path d="M3 1.5h6.5L13 5v9.5H3z" fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
        <path d="M9.5 1.5V5H13" fill="none" stroke="currentColor" strokeWidth="1.2" strokeLinejoin="round" />
      </svg>
    </span>
  );
}

export function EyeIcon({ crossed }: { crossed: boolean }) {
  return (
    <svg {...common}>
      <path d="M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8s-2.4 4.5-6.5 4.5S1.5 8 1.5 8z" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <circle cx="8" cy="8" r="2" fill="currentColor" />
      {crossed && <path d="M2.5 13.5l11-11" stroke="currentColor" strokeWidth="1.3" />}
    </svg>
  );
}

export function NewFileIcon() {
  return (
    <svg {...common}>
      <path d="M3 1.5h6L12 4.5v3M3 1.5v13h6" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <path d="M12 10v5M9.5 12.5h5" stroke="currentColor" strokeWidth="1.3" />
    </svg>
  );
}

export function NewFolderIcon() {
  return (
    <svg {...common}>
      <path d="M1.5 3.5h4l1.3 1.4h7.7v3M1.5 3.5v9h7" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <path d="M12 9.5v5M9.5 12h5" stroke="currentColor" strokeWidth="1.3" />
    </svg>
  );
}

export function CollapseIcon() {
  return (
    <svg {...common}>
      <rect x="2.5" y="2.5" width="11" height="11" rx="1" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <path d="M5 8h6" stroke="currentColor" strokeWidth="1.3" />
    </svg>
  );
}

export function CopyIcon() {
  return (
    <svg {...common}>
      <rect x="5" y="5" width="8.5" height="9.5" rx="1" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <path d="M3 11V2.5h7" fill="none" stroke="currentColor" strokeWidth="1.2" />
    </svg>
  );
}

export function SaveIcon() {
  return (
    <svg {...common}>
      <path d="M2.5 2.5h9l2 2v9h-11z" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <path d="M5 2.5v3.5h5V2.5M5 13.5V9.5h6v4" fill="none" stroke="currentColor" strokeWidth="1.2" />
    </svg>
  );
}

export function MinimapIcon() {
  return (
    <svg {...common}>
      <rect x="2" y="2" width="12" height="12" rx="1" fill="none" stroke="currentColor" strokeWidth="1.2" />
      <path d="M10 4.5h2M10 6.5h2M10 8.5h1.5M4 4.5h4M4 6.5h3M4 8.5h4" stroke="currentColor" strokeWidth="1" />
    </svg>
  );
}

export function DiffIcon() {
  return (
    <svg {...common}>
      <path d="M4 2v8M1 6h6M9 10h6M5 14h8" stroke="currentColor" strokeWidth="1.3" fill="none" />
    </svg>
  );
}

export function CloseIcon() {
  return (
    <svg {...common} width={14} height={14}>
      <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" stroke="currentColor" strokeWidth="1.3" />
    </svg>
  );
}

export function AgentBadge() {
  return (
    <svg {...common} width={12} height={12} className="agent-badge-icon">
      <path d="M8 1.5l1.6 4.9 4.9 1.6-4.9 1.6L8 14.5l-1.6-4.9L1.5 8l4.9-1.6z" fill="currentColor" />
    </svg>
  );
}

export function ChevronDownIcon() {
  return (
    <svg {...common} width={12} height={12}>
      <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />
    </svg>
  );
}
