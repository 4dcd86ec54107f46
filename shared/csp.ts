/**
 * The renderer's Content-Security-Policy, for both hosts: nothing from remote origins.
 * Monaco injects styles at run time, hence 'unsafe-inline' for styles only; workers come from blob:
 * in dev and from 'self' when built.
 */
export function contentSecurityPolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-src 'self' blob: data:",
    "child-src 'self' blob: data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
