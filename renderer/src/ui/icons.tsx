import '@vscode/codicons/dist/codicon.css';

/**
 * The app's icons are VS Code's codicons, so Kiln looks at home next to it. The font and its CSS are
 * bundled by Vite (nothing fetched). Icons are decoration: the button or row around them carries the
 * accessible name.
 */

interface IconProps {
  /** The codicon's name, as in `codicon-<name>`. */
  name: string;
  size?: number;
  className?: string;
}

export function Icon({ name, size = 16, className }: IconProps) {
  return (
    <span
      className={`codicon codicon-${name}${className ? ` ${className}` : ''}`}
      style={size === 16 ? undefined : { fontSize: size }}
      aria-hidden
    />
  );
}

interface SizeProps {
  size?: number;
}

// Explorer, breadcrumb, header and status bar

export function ChevronIcon({ open, size = 16 }: { open: boolean; size?: number }) {
  return <Icon name="chevron-right" size={size} className={`chevron${open ? ' open' : ''}`} />;
}

export function FolderIcon({ open }: { open: boolean }) {
  return <Icon name={open ? 'folder-opened' : 'folder'} className="icon icon-folder" />;
}

const FILE_COLOURS: Record<string, string> = {
  py: '#3572a5',
  ts: '#3178c6',
  tsx: '#3178c6',
  js: '#d4b400',
  jsx: '#d4b400',
  json: '#a67f00',
  md: '#4f8cc9',
  ipynb: '#e46e2e',
  csv: '#2e9c5e',
  txt: '#8a8f98',
  html: '#e34c26',
  css: '#663399',
  yaml: '#cb171e',
  yml: '#cb171e',
  sh: '#4eaa25',
  toml: '#9c4221',
  rs: '#dea584',
  go: '#00add8',
  c: '#555',
  h: '#555',
  cpp: '#f34b7d',
  java: '#b07219',
};

const FILE_GLYPHS: Record<string, string> = {
  ipynb: 'notebook',
  md: 'markdown',
  json: 'json',
  py: 'python',
  pdf: 'file-pdf',
  ...Object.fromEntries(['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'bmp', 'ico'].map((ext) => [ext, 'file-media'])),
  ...Object.fromEntries(['zip', 'gz', 'tgz', 'tar', 'bz2', 'xz', '7z'].map((ext) => [ext, 'file-zip'])),
  ...Object.fromEntries(
    [
      'ts',
      'tsx',
      'js',
      'jsx',
      'mjs',
      'cjs',
      'html',
      'css',
      'scss',
      'sh',
      'bash',
      'toml',
      'yaml',
      'yml',
      'xml',
      'sql',
      'rs',
      'go',
      'c',
      'h',
      'cpp',
      'hpp',
      'java',
      'rb',
      'r',
      'jl',
      'lua',
    ].map((ext) => [ext, 'file-code']),
  ),
};

function extOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export function FileIcon({ name }: { name: string }) {
  const ext = extOf(name);
  return (
    <span className="icon icon-file" style={{ color: FILE_COLOURS[ext] ?? '#8a8f98' }} aria-hidden>
      <Icon name={FILE_GLYPHS[ext] ?? 'file'} />
    </span>
  );
}

export function EyeIcon({ crossed }: { crossed: boolean }) {
  return <Icon name={crossed ? 'eye-closed' : 'eye'} />;
}

export const NewFileIcon = () => <Icon name="new-file" />;
export const NewFolderIcon = () => <Icon name="new-folder" />;
export const CollapseIcon = () => <Icon name="collapse-all" />;
export const CopyIcon = () => <Icon name="copy" />;
export const SaveIcon = () => <Icon name="save" />;
export const MinimapIcon = () => <Icon name="map" />;
export const DiffIcon = () => <Icon name="diff" />;
export const CloseIcon = () => <Icon name="close" size={14} />;
export const ChevronDownIcon = () => <Icon name="chevron-down" size={12} />;
export const BranchIcon = () => <Icon name="git-branch" size={14} />;

// Edit assistant and Agent panels

/** The edit assistant's mark. */
export const SparkIcon = ({ size = 14 }: SizeProps) => <Icon name="sparkle" size={size} className="icon-spark" />;
/** The workspace agent's mark. */
export const AgentIcon = ({ size = 14 }: SizeProps) => <Icon name="robot" size={size} className="icon-agent" />;
export const WarningIcon = ({ size = 14 }: SizeProps) => <Icon name="warning" size={size} />;
export const ErrorIcon = ({ size = 12 }: SizeProps) => <Icon name="error" size={size} />;
export const SendIcon = ({ size = 14 }: SizeProps) => <Icon name="send" size={size} />;
export const StopIcon = ({ size = 12 }: SizeProps) => <Icon name="debug-stop" size={size} />;
export const TrashIcon = ({ size = 14 }: SizeProps) => <Icon name="trash" size={size} />;
export const CheckIcon = ({ size = 14 }: SizeProps) => <Icon name="check" size={size} />;
export const XIcon = ({ size = 13 }: SizeProps) => <Icon name="close" size={size} />;
export const SpinnerIcon = ({ size = 12 }: SizeProps) => (
  <Icon name="loading" size={size} className="codicon-modifier-spin" />
);
/** A whole-file proposal. */
export const FileDiffIcon = ({ size = 14 }: SizeProps) => <Icon name="git-compare" size={size} />;

// Notebook toolbar and cells

export const PlayIcon = () => <Icon name="play" />;
export const RunAllIcon = () => <Icon name="run-all" />;
export const RestartIcon = () => <Icon name="debug-restart" />;
export const RestartRunIcon = () => <Icon name="debug-rerun" />;
export const PlusIcon = () => <Icon name="add" />;
export const ClearIcon = () => <Icon name="clear-all" />;
export const ArrowUpIcon = () => <Icon name="arrow-up" />;
export const ArrowDownIcon = () => <Icon name="arrow-down" />;
export const MoreIcon = () => <Icon name="ellipsis" />;
export const VariablesIcon = () => <Icon name="symbol-variable" />;
