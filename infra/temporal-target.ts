import { readFileSync } from 'node:fs';
// Types only: the packages load when a connection is made, so a command that merely reads TEMPORAL_ADDRESS starts fast.
import type { Connection, ConnectionOptions } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { InputError } from '../core/errors.js';

/**
 * Where Temporal is. From the environment, like the Temporal CLI:
 * TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_CERT / TEMPORAL_TLS_KEY
 * (mTLS), TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_TLS (=1 for TLS
 * without a client certificate) and TEMPORAL_API_KEY. Secrets are read here and
 * go nowhere else.
 */
export interface TemporalTarget {
  readonly address: string;
  readonly namespace: string;
  readonly tls?: ConnectionOptions['tls'];
  readonly apiKey?: string;
}

function tlsFromEnv(env: NodeJS.ProcessEnv): ConnectionOptions['tls'] | undefined {
  const read = (variable: string) => {
    const path = env[variable];
    if (!path) return undefined;
    try {
      return readFileSync(path);
    } catch {
      throw new InputError(`${variable}: cannot read ${path}`);
    }
  };
  const crt = read('TEMPORAL_TLS_CERT');
  const key = read('TEMPORAL_TLS_KEY');
  if (Boolean(crt) !== Boolean(key)) throw new InputError('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY must be set together');
  const ca = read('TEMPORAL_TLS_CA');
  const serverName = env.TEMPORAL_TLS_SERVER_NAME;
  if (!crt && !ca && !serverName && env.TEMPORAL_TLS !== '1' && !env.TEMPORAL_API_KEY) return undefined;
  return {
    ...(crt && key && { clientCertPair: { crt, key } }),
    ...(ca && { serverRootCACertificate: ca }),
    ...(serverName && { serverNameOverride: serverName }),
  };
}

/** The cluster named by the environment, or null for the embedded dev server. */
export function targetFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalTarget | null {
  const address = env.TEMPORAL_ADDRESS;
  if (!address) return null;
  if (!/^[^\s:/]+:\d+$/.test(address)) throw new InputError(`TEMPORAL_ADDRESS: '${address}' is not host:port`);
  const tls = tlsFromEnv(env);
  return {
    address,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    ...(tls && { tls }),
    ...(env.TEMPORAL_API_KEY && { apiKey: env.TEMPORAL_API_KEY }),
  };
}

function unreachable(target: TemporalTarget, error: unknown): InputError {
  const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new InputError(`cannot reach Temporal at ${target.address}: ${reason}`);
}

/**
 * A client's connection, checked with one call. `grpcAttempts` bounds the
 * client's own retries of a failed call (ten by default, about a minute): a
 * caller that decides for itself whether to call again (patiently, told when
 * the server is gone) hears of a failure in a second or two.
 */
export async function connectClient(target: TemporalTarget, connectTimeoutMs = 10_000, grpcAttempts?: number): Promise<Connection> {
  const { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } = await import('@temporalio/client');
  try {
    const connection = await Connection.connect({
      address: target.address,
      connectTimeout: connectTimeoutMs,
      ...(grpcAttempts !== undefined && {
        interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: grpcAttempts }))],
      }),
      ...(target.tls && { tls: target.tls }),
      ...(target.apiKey && { apiKey: target.apiKey }),
    });
    await connection.workflowService.getSystemInfo({});
    return connection;
  } catch (error) {
    throw unreachable(target, error);
  }
}

export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  const { NativeConnection } = await import('@temporalio/worker');
  try {
    return await NativeConnection.connect({
      address: target.address,
      ...(target.tls && { tls: target.tls }),
      ...(target.apiKey && { apiKey: target.apiKey }),
    });
  } catch (error) {
    throw unreachable(target, error);
  }
}
