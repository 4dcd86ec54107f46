/** Toolbar and cell icons for the notebook (inline SVG, 16px). */

const common = { width: 16, height: 16, viewBox: '0 0 16 16', 'aria-hidden': true, focusable: false } as const;
const stroke = { fill: 'none', stroke: 'currentColor', strokeWidth: 1.4, strokeLinecap: 'round', strokeLinejoin: 'round' } as const;

export function PlayIcon() {
  return (
    <svg {...common}>
      <path d="M4.5 3v10l8.5-5z" fill="currentColor" />
    </svg>
  );
}

export function RunAllIcon() {
  return (
    <svg {...common}>
      <path d="M2 3v10l6-5zM8 3v10l6-5z" fill="currentColor" />
    </svg>
  );
}

export function StopIcon() {
  return (
    <svg {...common}>
      <rect x="3.5" y="3.5" width="9" height="9" rx="1" fill="currentColor" />
    </svg>
  );
}

export function RestartIcon() {
  return (
    <svg {...common}>
      <path d="M12.6 9.2A4.8 4.8 0 1 1 11.3 4.4" {...stroke} />
      <path d="M11.8 1.8v3h-3" {...stroke} />
    </svg>
  );
}

export function RestartRunIcon() {
  return (
    <svg {...common}>
      <path d="M9.8 3.4A4.8 4.8 0 1 0 12.6 9" {...stroke} />
      <path d="M10 1v3h3" {...stroke} />
      <path d="M7 6v4.4l3.6-2.2z" fill="currentColor" />
    </svg>
  );
}

export function PlusIcon() {
  return (
    <svg {...common}>
      <path d="M8 3v10M3 8h10" {...stroke} />
    </svg>
  );
}

export function SaveIcon() {
  return (
    <svg {...common}>
      <path d="M3 2.5h8l2.5 2.5v8.5h-11z" {...stroke} />
      <path d="M5 2.5v3.5h5V2.5M5 13.5V9.5h6v4" {...stroke} />
    </svg>
  );
}

export function ClearIcon() {
  return (
    <svg {...common}>
      <path d="M9.5 2.5l4 4-6 6.5H4L2.5 11.5z" {...stroke} />
      <path d="M6 6l4 4M8 13h5.5" {...stroke} />
    </svg>
  );
}

export function ArrowUpIcon() {
  return (
    <svg {...common}>
      <path d="M8 13V3M4 7l4-4 4 4" {...stroke} />
    </svg>
  );
}

export function ArrowDownIcon() {
  return (
    <svg {...common}>
      <path d="M8 3v10M4 9l4 4 4-4" {...stroke} />
    </svg>
  );
}

export function TrashIcon() {
  return (
    <svg {...common}>
      <path d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.7 9h5.6l.7-9" {...stroke} />
    </svg>
  );
}

export function MoreIcon() {
  return (
    <svg {...common}>
      <circle cx="3.5" cy="8" r="1.2" fill="currentColor" />
      <circle cx="8" cy="8" r="1.2" fill="currentColor" />
      <circle cx="12.5" cy="8" r="1.2" fill="currentColor" />
    </svg>
  );
}
