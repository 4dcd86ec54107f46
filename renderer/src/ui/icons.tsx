import type { CSSProperties, ReactNode } from 'react';

/**
 * The app's inline SVG icons (no icon font, no CDN), all drawn on a 16-unit grid.
 * Icons are decoration: the button or row around them carries the accessible name.
 */

interface IconProps {
  size?: number;
  className?: string;
  style?: CSSProperties;
  children: ReactNode;
}

export function Icon({ size = 16, className, style, children }: IconProps) {
  return (
    <svg width={size} height={size} viewBox="0 0 16 16" aria-hidden focusable={false} className={className} style={style}>
      {children}
    </svg>
  );
}

interface SizeProps {
  size?: number;
}

const stroked = { fill: 'none', stroke: 'currentColor' } as const;
const rounded = { ...stroked, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;

// Explorer, breadcrumb and header

export function ChevronIcon({ open, size = 16 }: { open: boolean; size?: number }) {
  return (
    <Icon size={size} className={`chevron${open ? ' open' : ''}`}>
      <path d="M6 4l4 4-4 4" {...rounded} strokeWidth="1.4" />
    </Icon>
  );
}

export function FolderIcon({ open }: { open: boolean }) {
  return open ? (
    <Icon className="icon icon-folder">
      <path d="M1.5 3.5h4.2l1.3 1.4h6.5v1.6H4.2L1.5 12.5z" fill="currentColor" opacity="0.55" />
      <path d="M1.5 12.5l2.3-6h11l-2.4 6z" fill="currentColor" />
    </Icon>
  ) : (
    <Icon className="icon icon-folder">
      <path d="M1.5 3.5h4.2l1.3 1.4h7.5v7.6h-13z" fill="currentColor" />
    </Icon>
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
      <Icon>
        <path d="M3 1.5h6.5L13 5v9.5H3z" {...stroked} strokeWidth="1.2" strokeLinejoin="round" />
        <path d="M9.5 1.5V5H13" {...stroked} strokeWidth="1.2" strokeLinejoin="round" />
      </Icon>
    </span>
  );
}

export function EyeIcon({ crossed }: { crossed: boolean }) {
  return (
    <Icon>
      <path d="M1.5 8s2.4-4.5 6.5-4.5S14.5 8 14.5 8s-2.4 4.5-6.5 4.5S1.5 8 1.5 8z" {...stroked} strokeWidth="1.2" />
      <circle cx="8" cy="8" r="2" fill="currentColor" />
      {crossed && <path d="M2.5 13.5l11-11" stroke="currentColor" strokeWidth="1.3" />}
    </Icon>
  );
}

export function NewFileIcon() {
  return (
    <Icon>
      <path d="M3 1.5h6L12 4.5v3M3 1.5v13h6" {...stroked} strokeWidth="1.2" />
      <path d="M12 10v5M9.5 12.5h5" stroke="currentColor" strokeWidth="1.3" />
    </Icon>
  );
}

export function NewFolderIcon() {
  return (
    <Icon>
      <path d="M1.5 3.5h4l1.3 1.4h7.7v3M1.5 3.5v9h7" {...stroked} strokeWidth="1.2" />
      <path d="M12 9.5v5M9.5 12h5" stroke="currentColor" strokeWidth="1.3" />
    </Icon>
  );
}

export function CollapseIcon() {
  return (
    <Icon>
      <rect x="2.5" y="2.5" width="11" height="11" rx="1" {...stroked} strokeWidth="1.2" />
      <path d="M5 8h6" stroke="currentColor" strokeWidth="1.3" />
    </Icon>
  );
}

export function CopyIcon() {
  return (
    <Icon>
      <rect x="5" y="5" width="8.5" height="9.5" rx="1" {...stroked} strokeWidth="1.2" />
      <path d="M3 11V2.5h7" {...stroked} strokeWidth="1.2" />
    </Icon>
  );
}

export function SaveIcon() {
  return (
    <Icon>
      <path d="M2.5 2.5h9l2 2v9h-11z" {...stroked} strokeWidth="1.2" />
      <path d="M5 2.5v3.5h5V2.5M5 13.5V9.5h6v4" {...stroked} strokeWidth="1.2" />
    </Icon>
  );
}

export function MinimapIcon() {
  return (
    <Icon>
      <rect x="2" y="2" width="12" height="12" rx="1" {...stroked} strokeWidth="1.2" />
      <path d="M10 4.5h2M10 6.5h2M10 8.5h1.5M4 4.5h4M4 6.5h3M4 8.5h4" stroke="currentColor" strokeWidth="1" />
    </Icon>
  );
}

export function DiffIcon() {
  return (
    <Icon>
      <path d="M4 2v8M1 6h6M9 10h6M5 14h8" {...stroked} strokeWidth="1.3" />
    </Icon>
  );
}

export function CloseIcon() {
  return (
    <Icon size={14}>
      <path d="M4.5 4.5l7 7M11.5 4.5l-7 7" stroke="currentColor" strokeWidth="1.3" />
    </Icon>
  );
}

export function ChevronDownIcon() {
  return (
    <Icon size={12}>
      <path d="M4 6l4 4 4-4" {...stroked} strokeWidth="1.4" strokeLinecap="round" />
    </Icon>
  );
}

// Edit assistant and Agent panels

/** The edit assistant's mark. */
export function SparkIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size} className="icon-spark">
      <path d="M8 1l1.7 4.6L14.5 7 9.7 8.7 8 13.5 6.3 8.7 1.5 7l4.8-1.4z" fill="currentColor" />
      <path d="M13 11l.6 1.6 1.4.4-1.4.5L13 15l-.6-1.5-1.4-.5 1.4-.4z" fill="currentColor" opacity="0.7" />
    </Icon>
  );
}

/** The workspace agent's mark. */
export function AgentIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size} className="icon-agent">
      <rect x="2.5" y="4.5" width="11" height="8.5" rx="2.5" {...stroked} strokeWidth="1.3" />
      <path d="M8 1.8v2.7" {...rounded} strokeWidth="1.3" />
      <circle cx="8" cy="1.8" r="1" fill="currentColor" />
      <circle cx="5.8" cy="8.5" r="1.1" fill="currentColor" />
      <circle cx="10.2" cy="8.5" r="1.1" fill="currentColor" />
      <path d="M6.3 11h3.4" {...rounded} strokeWidth="1.2" />
    </Icon>
  );
}

export function WarningIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size}>
      <path d="M8 1.8l6.5 11.7H1.5z" {...stroked} strokeWidth="1.3" strokeLinejoin="round" />
      <path d="M8 6v3.6" {...rounded} strokeWidth="1.4" />
      <circle cx="8" cy="11.6" r="0.9" fill="currentColor" />
    </Icon>
  );
}

export function ErrorIcon({ size = 12 }: SizeProps) {
  return (
    <Icon size={size}>
      <circle cx="8" cy="8" r="6" {...stroked} strokeWidth="1.4" />
      <path d="M8 4.8v3.8" {...rounded} strokeWidth="1.5" />
      <circle cx="8" cy="11" r="0.9" fill="currentColor" />
    </Icon>
  );
}

export function SendIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size}>
      <path d="M2 8l11-5.5L10.5 14 8 9z" fill="currentColor" />
    </Icon>
  );
}

export function StopIcon({ size = 12 }: SizeProps) {
  return (
    <Icon size={size}>
      <rect x="3" y="3" width="10" height="10" rx="1.5" fill="currentColor" />
    </Icon>
  );
}

export function TrashIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size}>
      <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5" {...rounded} strokeWidth="1.2" />
    </Icon>
  );
}

export function CheckIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size}>
      <path d="M3 8.5l3 3 7-7" {...rounded} strokeWidth="1.7" />
    </Icon>
  );
}

export function XIcon({ size = 13 }: SizeProps) {
  return (
    <Icon size={size}>
      <path d="M4 4l8 8M12 4l-8 8" {...rounded} strokeWidth="1.5" />
    </Icon>
  );
}

export function SpinnerIcon({ size = 12 }: SizeProps) {
  return (
    <Icon size={size} className="icon-spin">
      <circle cx="8" cy="8" r="6" {...stroked} strokeOpacity="0.25" strokeWidth="2" />
      <path d="M8 2a6 6 0 0 1 6 6" {...rounded} strokeWidth="2" />
    </Icon>
  );
}

/** A whole-file proposal: a page with a plus/minus. */
export function FileDiffIcon({ size = 14 }: SizeProps) {
  return (
    <Icon size={size}>
      <path d="M3.5 1.5h6l3 3v10h-9z" {...stroked} strokeWidth="1.2" strokeLinejoin="round" />
      <path d="M8 5.5v4M6 7.5h4M6 12h4" stroke="currentColor" strokeWidth="1.2" />
    </Icon>
  );
}

// Notebook toolbar and cells

export function PlayIcon() {
  return (
    <Icon>
      <path d="M4.5 3v10l8.5-5z" fill="currentColor" />
    </Icon>
  );
}

export function RunAllIcon() {
  return (
    <Icon>
      <path d="M2 3v10l6-5zM8 3v10l6-5z" fill="currentColor" />
    </Icon>
  );
}

export function RestartIcon() {
  return (
    <Icon>
      <path d="M12.6 9.2A4.8 4.8 0 1 1 11.3 4.4" {...rounded} strokeWidth="1.4" />
      <path d="M11.8 1.8v3h-3" {...rounded} strokeWidth="1.4" />
    </Icon>
  );
}

export function RestartRunIcon() {
  return (
    <Icon>
      <path d="M9.8 3.4A4.8 4.8 0 1 0 12.6 9" {...rounded} strokeWidth="1.4" />
      <path d="M10 1v3h3" {...rounded} strokeWidth="1.4" />
      <path d="M7 6v4.4l3.6-2.2z" fill="currentColor" />
    </Icon>
  );
}

export function PlusIcon() {
  return (
    <Icon>
      <path d="M8 3v10M3 8h10" {...rounded} strokeWidth="1.4" />
    </Icon>
  );
}

export function ClearIcon() {
  return (
    <Icon>
      <path d="M9.5 2.5l4 4-6 6.5H4L2.5 11.5z" {...rounded} strokeWidth="1.4" />
      <path d="M6 6l4 4M8 13h5.5" {...rounded} strokeWidth="1.4" />
    </Icon>
  );
}

export function ArrowUpIcon() {
  return (
    <Icon>
      <path d="M8 13V3M4 7l4-4 4 4" {...rounded} strokeWidth="1.4" />
    </Icon>
  );
}

export function ArrowDownIcon() {
  return (
    <Icon>
      <path d="M8 3v10M4 9l4 4 4-4" {...rounded} strokeWidth="1.4" />
    </Icon>
  );
}

export function MoreIcon() {
  return (
    <Icon>
      <circle cx="3.5" cy="8" r="1.2" fill="currentColor" />
      <circle cx="8" cy="8" r="1.2" fill="currentColor" />
      <circle cx="12.5" cy="8" r="1.2" fill="currentColor" />
    </Icon>
  );
}
