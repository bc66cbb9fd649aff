import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The online-optimum cache the tests share (vitest.config.ts sets ALLOCBENCH_CACHE_DIR to it), kept between runs. */
export const ONLINE_TEST_CACHE = join(tmpdir(), 'allocbench-test-cache');
