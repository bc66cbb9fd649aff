import type { Loader, LoggerInterface } from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { FONT_FAMILY, FONT_FILES } from './font.js';

/** PNG pixels per SVG pixel: 2 puts a figure at about 200 dpi across a paper's text width. */
export const PNG_SCALE = 2;

export interface RenderedFigure {
  /** Standalone SVG document; width and height in px. */
  readonly svg: string;
  /** The same figure rasterized at PNG_SCALE, on white. */
  readonly png: Uint8Array;
}

/**
 * Vega, Vega-Lite and resvg, loaded when a figure is first drawn: a process
 * that draws none (a sweep, a worker) does not carry them (about 30 MiB).
 */
let renderer:
  | Promise<{ vega: typeof import('vega'); vegaLite: typeof import('vega-lite'); resvg: typeof import('@resvg/resvg-js') }>
  | undefined;
function loadRenderer() {
  renderer ??= (async () => {
    const [vega, vegaLite, resvg, metrics] = await Promise.all([
      import('vega'),
      import('vega-lite'),
      import('@resvg/resvg-js'),
      import('./text-metrics.js'),
    ]);
    metrics.measureTextWithBundledFont();
    return { vega, vegaLite, resvg };
  })();
  return renderer;
}

/**
 * Compiles a Vega-Lite spec and renders it headlessly: SVG from Vega's string
 * renderer (no DOM, no canvas), PNG from resvg with only the bundled font loaded,
 * so both come out byte-identical for the same spec on any machine.
 */
export async function renderFigure(spec: TopLevelSpec): Promise<RenderedFigure> {
  const { resvg } = await loadRenderer();
  const svg = await inTurn(() => toSvg(spec));
  const image = await resvg.renderAsync(svg, {
    fitTo: { mode: 'zoom', value: PNG_SCALE },
    background: 'white',
    font: {
      loadSystemFonts: false,
      fontFiles: [FONT_FILES.regular, FONT_FILES.bold],
      defaultFontFamily: FONT_FAMILY,
      sansSerifFamily: FONT_FAMILY,
    },
  });
  return { svg, png: image.asPng() };
}

async function toSvg(spec: TopLevelSpec): Promise<string> {
  const { vega, vegaLite } = await loadRenderer();
  const logger = strictLogger();
  const view = new vega.View(vega.parse(logger.check(vegaLite.compile(spec, { logger }).spec)), {
    renderer: 'none',
    loader: offline,
    logger,
  });
  try {
    // Clip-path and gradient ids come from module-wide counters: restart them per figure.
    vega.resetSVGDefIds();
    return logger.check(await view.toSVG());
  } finally {
    view.finalize();
  }
}

// The id counters are shared, so one figure renders at a time.
let previous: Promise<unknown> = Promise.resolve();
function inTurn<T>(task: () => Promise<T>): Promise<T> {
  const run = previous.then(task);
  previous = run.catch(() => undefined);
  return run;
}

// Figures carry their data inline: any load (data URL, image) is a bug, never a fetch.
const refuse = (uri: string) => Promise.reject(new Error(`figures render offline; refused to load ${uri}`));
const offline: Loader = { load: refuse, sanitize: refuse, http: refuse, file: refuse };

interface StrictLogger extends LoggerInterface {
  /** Throws if anything was logged, else passes the result on. */
  check<T>(result: T): T;
}

/**
 * A warning or error from Vega-Lite or Vega means a spec mistake (a dropped
 * encoding, a failed load) that would otherwise only reach the console. Vega
 * logs from inside its dataflow, where a throw would be lost, so the logger
 * collects and `check` throws once a step is done.
 */
function strictLogger(): StrictLogger {
  const problems: string[] = [];
  const note = (...args: unknown[]): StrictLogger => {
    problems.push(args.join(' '));
    return logger;
  };
  const logger: StrictLogger = {
    level: () => logger,
    error: note,
    warn: note,
    info: () => logger,
    debug: () => logger,
    check<T>(result: T): T {
      if (problems.length > 0) throw new Error(`figure spec: ${problems.join('; ')}`);
      return result;
    },
  };
  return logger;
}
