import type { ListObjectsV2CommandOutput, S3Client } from '@aws-sdk/client-s3';
import { parseObjectStoreLocation } from './run-location.js';
import { RunStoreError } from './store-errors.js';

/*
 * The few object operations the run store uses, on one S3 client per endpoint
 * and region. Endpoint, region and credentials come from the standard AWS environment
 * variables (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_REGION,
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) or the SDK's
 * own chain after them (a pod's or a VM's role); a custom endpoint (a local or
 * self-hosted server) is addressed path-style.
 */

type S3Sdk = typeof import('@aws-sdk/client-s3');

/** The SDK, loaded at the first request: about 16 MiB that a run on a file system never needs. */
let sdkLoaded: Promise<S3Sdk> | undefined;
/** Clients by endpoint and region as the environment names them when a request is made (a process that moves to another server gets another). */
const clients = new Map<string, S3Client>();

async function s3(): Promise<{ readonly sdk: S3Sdk; readonly client: S3Client }> {
  const sdk = await (sdkLoaded ??= import('@aws-sdk/client-s3'));
  // The pinned SDK runs on Node 20; its notice about later versions needing Node 22 would break every command's one-line output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const endpoint = process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const key = `${endpoint ?? ''} ${region}`;
  let client = clients.get(key);
  if (!client) clients.set(key, (client = new sdk.S3Client({ region, ...(endpoint && { endpoint, forcePathStyle: true }) })));
  return { sdk, client };
}

/** Requests this process has sent, by kind: what a store costs (bench:store). */
export const objectRequests = { get: 0, put: 0, list: 0, delete: 0 };

/** Errors no retry mends: the bucket, the credentials or the permissions are wrong. */
const FATAL = new Set([
  'NoSuchBucket',
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'CredentialsProviderError',
  'InvalidBucketName',
]);

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const nameOf = (error: unknown) => (error instanceof Error ? error.name : '');

/** A conditional write lost: the object exists (If-None-Match), or changed (If-Match), or a concurrent conditional write won. */
export const isConditionFailed = (error: unknown) =>
  nameOf(error) === 'PreconditionFailed' ||
  nameOf(error) === 'ConditionalRequestConflict' ||
  statusOf(error) === 412 ||
  statusOf(error) === 409;

const isMissing = (error: unknown) => nameOf(error) === 'NoSuchKey' || nameOf(error) === 'NotFound' || statusOf(error) === 404;

/** A bucket and a key prefix: a run's location, or a folder of runs. */
export class ObjectPrefix {
  readonly bucket: string;
  readonly prefix: string;

  constructor(readonly location: string) {
    ({ bucket: this.bucket, prefix: this.prefix } = parseObjectStoreLocation(location));
  }

  key(part: string): string {
    return this.prefix ? `${this.prefix}/${part}` : part;
  }

  where(part: string): string {
    return `s3://${this.bucket}/${this.key(part)}`;
  }

  private async send<T>(
    kind: keyof typeof objectRequests,
    part: string,
    request: (s3: { readonly sdk: S3Sdk; readonly client: S3Client }) => Promise<T>,
  ): Promise<T> {
    objectRequests[kind]++;
    try {
      return await request(await s3());
    } catch (error) {
      if (FATAL.has(nameOf(error)))
        throw new RunStoreError(`${this.where(part)}: ${nameOf(error)}: ${(error as Error).message.split('\n')[0]}`);
      throw error;
    }
  }

  /** The object's text and ETag, or undefined if there is none. */
  async get(part: string): Promise<{ text: string; etag: string } | undefined> {
    try {
      const output = await this.send('get', part, ({ sdk, client }) =>
        client.send(new sdk.GetObjectCommand({ Bucket: this.bucket, Key: this.key(part) })),
      );
      return { text: (await output.Body?.transformToString()) ?? '', etag: output.ETag ?? '' };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Writes the object whole (S3 never shows part of one); `ifNoneMatch` creates it only if absent, `ifMatch` replaces only that version. Returns the ETag, or undefined if the condition failed. */
  async put(part: string, text: string, condition: { ifNoneMatch?: true; ifMatch?: string } = {}): Promise<string | undefined> {
    try {
      const output = await this.send('put', part, ({ sdk, client }) =>
        client.send(
          new sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key: this.key(part),
            Body: text,
            ContentType: 'application/json',
            ...(condition.ifNoneMatch && { IfNoneMatch: '*' }),
            ...(condition.ifMatch && { IfMatch: condition.ifMatch }),
          }),
        ),
      );
      return output.ETag ?? '';
    } catch (error) {
      if ((condition.ifNoneMatch || condition.ifMatch) && (isConditionFailed(error) || (condition.ifMatch && isMissing(error))))
        return undefined;
      throw error;
    }
  }

  /** Deletes the object; with `ifMatch`, only that version. False if the condition failed. */
  async delete(part: string, ifMatch?: string): Promise<boolean> {
    try {
      await this.send('delete', part, ({ sdk, client }) =>
        client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(part), ...(ifMatch && { IfMatch: ifMatch }) })),
      );
      return true;
    } catch (error) {
      if (ifMatch && (isConditionFailed(error) || isMissing(error))) return false;
      throw error;
    }
  }

  /** Keys (relative to this prefix) under `part`, in key order, after `startAfter` if given; at most `limit`. */
  async list(part: string, options: { startAfter?: string; limit?: number } = {}): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    do {
      const output: ListObjectsV2CommandOutput = await this.send('list', part, ({ sdk, client }) =>
        client.send(
          new sdk.ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: this.key(part),
            ...(options.startAfter && { StartAfter: this.key(options.startAfter) }),
            ...(options.limit && { MaxKeys: options.limit }),
            ...(token && { ContinuationToken: token }),
          }),
        ),
      );
      for (const object of output.Contents ?? []) if (object.Key) keys.push(object.Key.slice(strip));
      token = output.IsTruncated && !(options.limit && keys.length >= options.limit) ? output.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** The names of the folders directly under this prefix. */
  async folders(): Promise<string[]> {
    const names: string[] = [];
    let token: string | undefined;
    const base = this.prefix ? `${this.prefix}/` : '';
    do {
      const output: ListObjectsV2CommandOutput = await this.send('list', '', ({ sdk, client }) =>
        client.send(
          new sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: base, Delimiter: '/', ...(token && { ContinuationToken: token }) }),
        ),
      );
      for (const common of output.CommonPrefixes ?? []) if (common.Prefix) names.push(common.Prefix.slice(base.length, -1));
      token = output.IsTruncated ? output.NextContinuationToken : undefined;
    } while (token);
    return names;
  }
}
