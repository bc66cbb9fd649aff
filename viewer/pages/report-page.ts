import type { ReportState } from '../report-builds.js';
import type { RunIndex } from '../run-index.js';
import { html, page, type Html } from './markup.js';
import { runHref } from './run-pages.js';

const buildForm = (id: string, label: string) =>
  html`<form method="post" action="${runHref(id)}/report/build" class="inline"><button type="submit">${label}</button></form>`;

/**
 * A run's report: `allocbench analyze`'s own page (its tables and figures), with
 * a line on top that leads back to the viewer and rebuilds it; before it is
 * built, or while it is, a page that says so.
 */
export function reportPage(id: string, index: RunIndex, state: ReportState, built?: string): string {
  if (state.state === 'built' && built !== undefined) {
    const banner: Html = html`<p class="viewer-banner" style="background:#eef4fb;padding:.5em;border-radius:4px">
      <a href="${runHref(id)}">← ${index.name} in the viewer</a> · built by allocbench analyze at ${state.at.slice(11, 19)} (${state.line})
      ${buildForm(id, 'rebuild')}
    </p>`;
    return built.replace(/<body>/, `<body>\n${banner.text}`);
  }
  const body =
    state.state === 'building'
      ? html`<meta http-equiv="refresh" content="2" />
          <p>Building since ${state.since.slice(11, 19)} with <code>allocbench analyze</code>… this page reloads itself.</p>`
      : state.state === 'failed'
        ? html`<p class="failure">${state.line}</p>
            ${buildForm(id, 'try again')}`
        : html`<p>The report's tables and figures come from <code>allocbench analyze</code>, run on this run's finished sessions.</p>
            ${buildForm(id, 'build the report')}`;
  return page(
    `${index.name}: report`,
    [{ href: runHref(id), label: index.name }, { label: 'report' }],
    html`<h1>Report</h1>
      ${body}`,
  );
}
