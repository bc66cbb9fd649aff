import { escapeHtml } from '../../analysis/report/html.js';

/** Markup that is already safe: interpolated as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const render = (part: Part): string =>
  part instanceof Html
    ? part.text
    : Array.isArray(part)
      ? part.map(render).join('')
      : part === null || part === undefined || part === false
        ? ''
        : escapeHtml(String(part));

/** A template whose interpolations are escaped, unless they are Html (or lists of it): no run's text ever reaches a page as markup. */
export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  return new Html(strings.reduce((out, text, i) => out + text + (i < parts.length ? render(parts[i] as Part) : ''), ''));
}

/** Markup made by a trusted renderer (the report's tables, highlight.js). */
export const trusted = (text: string) => new Html(text);

/** A query string from parameters, leaving out empty ones. */
export function query(params: Readonly<Record<string, string | number | undefined | null>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A page of the viewer: its style and script ship in the package (no network at run time). */
export function page(title: string, crumbs: readonly { href?: string; label: string }[], body: Html): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · allocbench view</title>
        <link rel="stylesheet" href="/assets/viewer.css" />
        <link rel="stylesheet" href="/assets/highlight.css" />
        <script src="/assets/viewer.js" defer></script>
      </head>
      <body>
        <nav class="crumbs">
          <a href="/">allocbench view</a>${crumbs.map(
            (c) => html` › ${c.href ? html`<a href="${c.href}">${c.label}</a>` : html`<span>${c.label}</span>`}`,
          )}
        </nav>
        <main>${body}</main>
      </body>
    </html> `.text;
}

export const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;
