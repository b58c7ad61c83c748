import { OutboundLimitError, OutboundRefusedError } from '@sched/kit/outbound';

/**
 * Why oidc-provider refused a metadata document, in words for the page: its own errors say "fetch
 * failed" and keep the reason in `cause` (our outbound module's refusals and caps, the HTTP
 * status, the body check, JSON parsing) or in `error_description` (document rules).
 */
export function describeDocumentFailure(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  if (cause instanceof OutboundRefusedError) {
    return cause.reason === 'redirect'
      ? 'its URL answered with a redirect (redirects are not followed)'
      : `its address is not allowed (${cause.message})`;
  }
  if (cause instanceof OutboundLimitError) {
    return cause.limit === 'size' ? 'it is larger than 5 KB' : 'it took longer than 3 seconds';
  }
  if (cause instanceof SyntaxError) return 'it is not JSON';
  if (cause instanceof Error && cause.message === 'response too large') return 'it is larger than 5 KB';
  if (cause instanceof Response) {
    return cause.status >= 300 && cause.status < 400
      ? 'its URL answered with a redirect (redirects are not followed)'
      : `its URL answered with HTTP ${cause.status}`;
  }
  const described = error as { error_description?: unknown; message?: unknown };
  if (typeof described?.error_description === 'string') {
    if (described.error_description === 'client_id metadata document fetch failed')
      return 'it could not be fetched';
    return described.error_description.replace(/^client_id metadata document /, 'the document ');
  }
  return 'it could not be fetched';
}
