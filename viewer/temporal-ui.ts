import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isObjectStoreLocation } from '../run-store/run-location.js';
import type { Manifest } from '../run-store/manifest-record.js';
import type { SessionSpec } from '../core/sweep/session-spec.js';
import { sessionKey } from '../core/sweep/session-spec.js';
import { sweepWorkflowId } from '../workflows/workflow-ids.js';
import type { RunStore } from '../run-store/run-store.js';

/** A Temporal Web UI and the namespace the run's workflows are in. */
export interface TemporalUi {
  readonly url: string;
  readonly namespace: string;
}

/**
 * The Web UI of the embedded dev server a sweep is running on this run (file
 * system only): its process id is kept beside its SQLite file, and its
 * command line names the UI's port (infra/dev-server.ts). Null when none runs.
 */
function embeddedServerUi(store: RunStore): TemporalUi | null {
  if (isObjectStoreLocation(store.location)) return null;
  try {
    const dbFile = join(store.localStateDir, 'dev.sqlite');
    const pid = Number(readFileSync(`${dbFile}.pid`, 'utf8'));
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const port = args[args.indexOf('--ui-port') + 1];
    if (!args.includes(dbFile) || !port || !/^\d+$/.test(port)) return null;
    return { url: `http://127.0.0.1:${port}`, namespace: 'default' };
  } catch {
    return null;
  }
}

/** The UI a session links to: the one given (--temporal-ui), else the embedded server running this run, else none. */
export function temporalUiFor(store: RunStore, given: TemporalUi | null): TemporalUi | null {
  return given ?? embeddedServerUi(store);
}

/** A session's workflow in the UI: its id is the sweep's workflow id and the session key (workflows/sweep-workflow.ts). Null for an imported run, which has none. */
export function workflowLink(ui: TemporalUi | null, manifest: Manifest, spec: SessionSpec): string | null {
  if (!ui || manifest.import) return null;
  const id = `${sweepWorkflowId(manifest.config)}/${sessionKey(spec)}`;
  return `${ui.url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${encodeURIComponent(id)}`;
}
