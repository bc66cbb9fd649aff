import 'vitest';

/** What the global set-up (test/setup/) hands the test files, through vitest's provide and inject. */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Temporal dev servers' addresses, one per vitest worker (test/temporal/harness.ts picks one). */
    temporalServers: string[];
    /** A directory for this run's shared fixtures (test/shared-fixture.ts), removed at its end. */
    fixturesDir: string;
  }
}
