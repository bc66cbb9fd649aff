import { afterAll, beforeAll } from 'vitest';
import { startS3Server, type S3Server } from '../../infra/s3-server.js';

/** One S3 server for the test file: started before its tests, stopped after them. */
export function s3ServerForThisFile(): { readonly server: S3Server } {
  let started: S3Server | undefined;
  beforeAll(async () => {
    started = await startS3Server();
  });
  afterAll(async () => started?.stop());
  return {
    get server() {
      if (!started) throw new Error('the S3 server has not started');
      return started;
    },
  };
}
