/**
 * The renderer's Content-Security-Policy, for both hosts: nothing from remote origins.
 * Monaco injects styles at run time, hence 'unsafe-inline' for styles only; workers come from blob:
 * in dev and from 'self' when built. No page may frame Kiln, not even Kiln's own (frame-ancestors 'none'):
 * another page on 127.0.0.1 could otherwise dress it up and steer the operator's clicks. frame-ancestors counts
 * only as a header, never in a <meta>, so both hosts send this as one.
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
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers every response of a host carries: the policy above and its older equivalent for framing. */
export function frameDenyingHeaders(): Record<string, string> {
  return { 'content-security-policy': contentSecurityPolicy(), 'x-frame-options': 'DENY' };
}
