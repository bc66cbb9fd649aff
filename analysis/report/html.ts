/** Escapes text for HTML element content and attribute values. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:1em 0 2em}caption{text-align:left;caption-side:top;margin-bottom:.4em;max-width:60em}
th,td{border-bottom:1px solid #ddd;padding:.25em .6em}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.6em;border-radius:4px}.turn{border-left:3px solid #bbb;padding-left:.8em;margin:1.2em 0}
.tool{color:#064}.failure{color:#a00}figure{margin:1em 0 2em}img{max-width:100%}`;

/** A self-contained page: no scripts, no network, inline style, so it opens offline. */
export function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>\n<body>\n${body}\n</body></html>\n`;
}
